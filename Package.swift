// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AssetPipeline",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AssetPipeline", targets: ["AssetPipeline"]),
        .library(name: "AssetStorage", targets: ["AssetStorage"]),
        .executable(name: "assetpipe", targets: ["AssetPipelineCLI"]),
        .executable(name: "assetpipe-bench", targets: ["AssetBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // MARK: storage
        .target(
            name: "AssetStorage",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // MARK: manager and utils
        .target(
            name: "AssetPipeline",
            dependencies: [
                "AssetStorage",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),

        // MARK: faces
        .executableTarget(
            name: "AssetPipelineCLI",
            dependencies: [
                "AssetPipeline",
                "AssetStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "AssetBenchmarks",
            dependencies: [
                "AssetStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: test support
        .executableTarget(
            name: "DiskCacheWorker",
            dependencies: ["AssetStorage"],
            path: "Tests/Workers/DiskCacheWorker"
        ),

        // MARK: tests
        .testTarget(name: "AssetStorageTests", dependencies: ["AssetStorage"]),
        .testTarget(name: "AssetPipelineTests", dependencies: ["AssetPipeline", "AssetStorage"]),
        .testTarget(name: "AssetPipelineCLITests", dependencies: ["AssetStorage"]),
    ]
)
