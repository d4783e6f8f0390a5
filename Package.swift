// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AssetPipeline",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AssetPipeline", targets: ["AssetPipeline"]),
        .library(name: "AssetStorage", targets: ["AssetStorage"]),
        .library(name: "AssetLoading", targets: ["AssetLoading"]),
        .library(name: "AssetCodecs", targets: ["AssetCodecs"]),
        .library(name: "AssetImaging", targets: ["AssetImaging"]),
        .library(name: "AssetLottie", targets: ["AssetLottie"]),
        .library(name: "AssetLottieRender", targets: ["AssetLottieRender"]),
        .library(name: "AssetWorkers", targets: ["AssetWorkers"]),
        .library(name: "AssetVideoFrames", targets: ["AssetVideoFrames"]),
        .library(name: "AssetServer", targets: ["AssetServer"]),
        .executable(name: "assetpipe", targets: ["AssetPipelineCLI"]),
        .executable(name: "assetpipe-bench", targets: ["AssetBenchmarks"]),
        .executable(name: "assetpipe-demo-origin", targets: ["AssetDemoOrigin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // MARK: codecs
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng16",
            providers: [.apt(["libpng-dev"])]
        ),
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]
        ),
        // One C file per library (apc_png.c, apc_jpeg.c, apc_webp.c, apc_avif.c, apc_gif.c, apc_heif.c,
        // apc_tiff.c, apc_svg.c, apc_jxl.c). libwebp, libavif (already linked by the encoders) and giflib
        // are linked; libheif, libtiff, librsvg and libjxl are opened on their first use (dlopen,
        // apc_library.c): together with what they pull in they would map some 80 shared libraries and
        // 20 MB resident into every process of the package. All from Debian (scripts/install-deps).
        .target(
            name: "CAssetCodecs",
            dependencies: ["CPNG", "CJPEG"],
            // zlib's crc32 checks PNG chunks before libpng reads them, and inflates an .svgz's head
            // for the sniff (zlib1g-dev, in scripts/install-deps).
            linkerSettings: [
                .linkedLibrary("z"), .linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("avif"),
                .linkedLibrary("gif"), .linkedLibrary("dl"),
            ]
        ),
        .target(
            name: "AssetCodecs",
            dependencies: ["CAssetCodecs"]
        ),
        // Imaging: resampling, orientation, colour (lcms2) and the encoders (libjpeg-turbo, libpng,
        // libwebp with libwebpmux's animation encoder, libavif, cgif for GIF), all from Debian
        // (scripts/install-deps).
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        // No pkgConfig: libavif's .pc adds -DAVIF_DLL, which SwiftPM refuses with a warning; the
        // header is in /usr/include/avif.
        .systemLibrary(
            name: "CAVIF",
            providers: [.apt(["libavif-dev"])]
        ),
        .systemLibrary(
            name: "CLCMS2",
            pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]
        ),
        .target(
            name: "CAssetImaging",
            dependencies: ["CPNG", "CJPEG", "CWebP", "CAVIF", "CLCMS2"],
            // The module maps' `link` lines reach only Swift importers; pkg-config covers webp and lcms2.
            linkerSettings: [.linkedLibrary("avif"), .linkedLibrary("webpmux"), .linkedLibrary("cgif")]
        ),
        .target(
            name: "AssetImaging",
            // AssetWorkers: variants and decodes of the large parsers' formats in worker processes
            // (ImageTransformJob, ImageDecodeJob).
            // CAssetVideoFrame: MP4 output (avf_mp4_write.c), through the FFmpeg it opens on first use;
            // AssetVideoFrames: a video's animated preview (VideoPreviewDecoder) made into an animation.
            dependencies: ["AssetCodecs", "CAssetImaging", "AssetWorkers", "CAssetVideoFrame", "AssetVideoFrames"]
        ),
        .executableTarget(
            name: "AssetCodecsFuzz",
            dependencies: ["AssetCodecs", "AssetImaging", "AssetFuzzSupport"]
        ),
        .target(
            name: "AssetLottie",
            dependencies: [
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // Lottie frames: rlottie (librlottie-dev, in scripts/install-deps) behind a small C++ shim that
        // catches its exceptions; the Swift side checks everything it can before rlottie runs.
        .systemLibrary(
            name: "CRLottie",
            pkgConfig: "rlottie",
            providers: [.apt(["librlottie-dev"])]
        ),
        .target(
            name: "CAssetLottieRender",
            dependencies: ["CRLottie"]
        ),
        .target(
            name: "AssetLottieRender",
            dependencies: ["AssetCodecs", "AssetLottie", "CAssetLottieRender", "AssetWorkers"]
        ),
        // Worker processes for the renderers of hostile input: posix_spawn, pipes, a memory limit.
        .target(name: "AssetWorkers"),
        // Video frames: FFmpeg's headers (libavformat-dev, libavcodec-dev, libswscale-dev, in
        // scripts/install-deps) behind a C shim that decodes one frame through the caller's reads.
        // The shim opens the libraries on its first decode (dlopen), so they are not linked: they
        // and their dependencies would cost every process of the package about 25 MB resident.
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]
        ),
        .target(
            name: "CAssetVideoFrame",
            dependencies: ["CFFmpeg"],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "AssetVideoFrames",
            dependencies: ["AssetCodecs", "CAssetVideoFrame", "AssetWorkers"]
        ),

        // MARK: storage
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        .target(
            name: "AssetStorage",
            dependencies: [
                "CXXHash",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // MARK: loading
        .target(
            name: "AssetLoading",
            dependencies: [
                "AssetStorage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                // SigV4 (S3/): HMAC-SHA256 and SHA-256
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // MARK: manager and utils
        .target(
            name: "AssetPipeline",
            dependencies: [
                "AssetStorage",
                "AssetLoading",
                "AssetCodecs",
                "AssetImaging",
                "AssetLottie",
                "AssetLottieRender",
                "AssetVideoFrames",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: faces
        .target(
            name: "AssetServer",
            dependencies: [
                "AssetPipeline",
                "AssetStorage",
                "AssetLoading",
                "AssetCodecs",
                "AssetImaging",
                "AssetLottie",
                "AssetVideoFrames",
                "AssetLottieRender",
                "AssetWorkers",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "AssetPipelineCLI",
            dependencies: [
                "AssetServer",
                "AssetPipeline",
                "AssetStorage",
                "AssetLoading",
                "AssetCodecs",
                "AssetImaging",
                "AssetLottie",
                "AssetLottieRender",
                "AssetVideoFrames",
                "AssetWorkers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "AssetBenchmarks",
            dependencies: [
                "AssetPipeline",
                "AssetStorage",
                "AssetLoading",
                "AssetCodecs",
                "AssetImaging",
                "AssetLottie",
                "AssetLottieRender",
                "AssetVideoFrames",
                "AssetWorkers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),

        // MARK: test support
        .target(
            name: "AssetTestSupport",
            dependencies: [
                "AssetWorkers",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // the driver the libFuzzer targets share: libFuzzer's entry points under scripts/fuzz, a replay
        // of saved inputs without the fuzzer
        .target(name: "AssetFuzzSupport"),
        // libFuzzer targets for the parsers (scripts/fuzz builds it with -sanitize=fuzzer)
        .executableTarget(
            name: "AssetParsersFuzz",
            dependencies: ["AssetLoading", "AssetPipeline", "AssetStorage", "AssetLottie", "AssetServer", "AssetFuzzSupport"]
        ),
        // libFuzzer target of a Lottie frame as the service renders one: our reader, parser and the
        // renderer's checks, then rlottie (scripts/fuzz lottie-frames)
        .executableTarget(
            name: "AssetLottieFramesFuzz",
            dependencies: ["AssetLottie", "AssetLottieRender", "AssetFuzzSupport"]
        ),
        // the libFuzzer target of a video frame: FFmpeg's demuxers and decoders through the C shim
        // (scripts/fuzz video-frames)
        .executableTarget(
            name: "AssetVideoFramesFuzz",
            dependencies: ["AssetVideoFrames", "AssetFuzzSupport"]
        ),
        .executableTarget(
            name: "AssetDemoOrigin",
            dependencies: [
                "AssetTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "AssetExamples",
            dependencies: ["AssetPipeline", "AssetLoading", "AssetStorage", "AssetCodecs", "AssetImaging", "AssetLottie", "AssetVideoFrames"]
        ),
        .executableTarget(
            name: "DiskCacheWorker",
            dependencies: ["AssetStorage"],
            path: "Tests/Workers/DiskCacheWorker"
        ),
        .executableTarget(
            name: "LoaderWorker",
            dependencies: ["AssetLoading", "AssetStorage", "AssetTestSupport"],
            path: "Tests/Workers/LoaderWorker"
        ),
        .executableTarget(
            name: "RenderWorker",
            dependencies: ["AssetWorkers", "AssetLottieRender", "AssetVideoFrames", "AssetImaging"],
            path: "Tests/Workers/RenderWorker"
        ),
        .executableTarget(
            name: "ChunkStoreWorker",
            dependencies: ["AssetStorage"],
            path: "Tests/Workers/ChunkStoreWorker"
        ),

        // MARK: tests
        .testTarget(name: "AssetStorageTests", dependencies: ["AssetStorage", "AssetTestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "AssetCodecsTests", dependencies: ["AssetCodecs", "AssetTestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "AssetImagingTests", dependencies: ["AssetImaging", "AssetCodecs", "AssetTestSupport", "CWebP", "CAVIF"]),
        .testTarget(name: "AssetWorkersTests", dependencies: [
            "AssetWorkers", "AssetLottieRender", "AssetLottie", "AssetCodecs", "AssetTestSupport",
        ]),
        .testTarget(name: "AssetVideoFramesTests", dependencies: ["AssetVideoFrames", "AssetCodecs", "AssetTestSupport"]),
        .testTarget(name: "AssetLottieRenderTests", dependencies: [
            "AssetLottieRender", "AssetLottie", "AssetCodecs", "AssetTestSupport",
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ]),
        .testTarget(name: "AssetLottieTests", dependencies: ["AssetLottie", "AssetTestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "AssetLoadingTests", dependencies: [
            "AssetLoading", "AssetStorage", "AssetTestSupport",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        .testTarget(name: "AssetPipelineTests", dependencies: [
            "AssetPipeline", "AssetStorage", "AssetLoading", "AssetCodecs", "AssetImaging", "AssetLottie", "AssetLottieRender", "AssetWorkers",
            "AssetVideoFrames", "AssetTestSupport", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "AssetServerTests", dependencies: [
            "AssetServer", "AssetPipeline", "AssetStorage", "AssetLoading", "AssetTestSupport", "AssetImaging", "AssetCodecs", "AssetWorkers", "AssetVideoFrames",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "AssetPipelineCLITests", dependencies: [
            "AssetStorage", "AssetLoading", "AssetCodecs", "AssetTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
    ]
)
