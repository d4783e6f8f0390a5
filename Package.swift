// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AssetPipeline",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AssetStorage", targets: ["AssetStorage"]),
        .executable(name: "assetpipe-bench", targets: ["AssetBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // MARK: storage
        .target(name: "AssetStorage"),

        // MARK: benchmarks
        .executableTarget(
            name: "AssetBenchmarks",
            dependencies: [
                "AssetStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: tests
        .testTarget(name: "AssetStorageTests", dependencies: ["AssetStorage"]),
    ]
)
