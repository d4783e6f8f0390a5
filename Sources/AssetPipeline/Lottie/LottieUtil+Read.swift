import AssetLottie

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LottieUtil {
    /// Reads bytes that are already here (a local file, a request body), off Swift's cooperative
    /// pool, with this util's limits and `options.strict`. Nothing is cached.
    /// - Throws: `LottieError`.
    public func read(_ data: Data, options: Options = Options()) async throws -> LottieDocument {
        let reader = configuration.reader(strict: options.strict)
        let body: @Sendable () throws -> LottieDocument = { [self] in
            self.parses.add(1, ordering: .relaxed)
            return try reader.read(data)
        }
        if let pool = configuration.parsePool {
            return try await pool.runIfActive(body)
        }
        return try await manager.runIO(body)
    }

    /// Reads `data` on the calling thread (for a command-line tool, or a caller already on a thread
    /// of its own), with the reader's default limits unless `configuration` says otherwise.
    /// - Throws: `LottieError`.
    public static func read(
        _ data: Data, options: Options = Options(), configuration: Configuration = Configuration()
    ) throws(LottieError) -> LottieDocument {
        try configuration.reader(strict: options.strict).read(data)
    }

    /// Bytes of memory a parsed model takes for each byte of JSON structure it was parsed from: 8.
    ///
    /// Measured with `assetpipe-bench utils --model-files` (resident memory with 20 parsed copies
    /// kept, per copy, over the source bytes): 6.6 to 8.5 for the corpus' largest shape-heavy
    /// animations, where every number of a few bytes becomes a 16-byte `JSONValue` in an array.
    /// Embedded images (`data:` URLs) stay one string each and cost about their length.
    public static let modelBytesPerJSONByte = 8

    /// The memory cost of a parsed document, for the memory cache: for each animation, its source
    /// bytes (JSON after decompression, with a dotLottie's images embedded) less its embedded
    /// images, times ``modelBytesPerJSONByte``; plus the embedded images' bytes; plus 1 KiB for
    /// the fixed parts.
    public static func estimatedCost(of document: LottieDocument) -> Int {
        document.animations.reduce(0) { total, entry in
            let images = embeddedImageBytes(of: entry.animation)
            return total + max(0, entry.sourceByteCount - images) * modelBytesPerJSONByte + images + 1024
        }
    }

    /// The bytes of the `data:` URLs of an animation's image assets.
    static func embeddedImageBytes(of animation: LottieAnimation) -> Int {
        (animation.assets ?? []).reduce(0) { total, asset in
            guard case .image(let image) = asset, image.isDataURL else { return total }
            return total + image.path.utf8.count
        }
    }
}
