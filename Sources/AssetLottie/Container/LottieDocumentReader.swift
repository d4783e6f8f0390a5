import Foundation

/// Reads any Lottie file: plain JSON, gzip (`.tgs`) or dotLottie (zip), sniffed from its bytes.
///
/// Nothing is ever extracted to disk: archive entries are read into memory by name, entry paths that
/// could escape (`..`, absolute, backslashes) are ignored, and every decompression is bounded.
///
/// A dotLottie gives every animation its manifest lists (or, without a usable manifest, every
/// `animations/*.json` or `a/*.json`), with the images the archive holds embedded as `data:` URLs.
/// Every failure is a ``LottieError``: the parser's, or `invalidArchive`, `archiveLimitExceeded`,
/// `animationNotFound`, `invalidCompressedData`, `decompressedTooLarge`, `unreadableFile`.
///
/// ```swift
/// let document = try LottieDocumentReader().read(data)
/// for entry in document.animations { print(entry.id ?? "-", entry.animation.durationSeconds ?? 0) }
/// ```
public struct LottieDocumentReader: Sendable {
    /// Limits; defaults written where they are declared.
    public struct Configuration: Sendable {
        /// How animations are parsed (limits, strict mode). Default: lenient, default limits.
        public var parser = LottieParser.Configuration()
        /// Most bytes decompressed from one gzip stream or one archive, all entries together. Default 128 MiB.
        public var maxDecompressedBytes: Int = 128 << 20
        /// Most entries an archive may list. Default 10,000.
        public var maxArchiveEntries: Int = 10_000
        /// Most animations read from one archive. Default 256.
        public var maxAnimations: Int = 256

        /// The default limits, each written on its property.
        public init() {}
    }

    /// The limits of every read this reader does.
    public var configuration: Configuration

    /// Creates a reader; by default with the default limits, parsing leniently.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Reads a file's bytes (of any of the three formats).
    ///
    /// Input larger than `parser.maxInputBytes` is refused (`inputTooLarge`); a gzip stream may
    /// inflate to no more than that, nor than ``Configuration-swift.struct/maxDecompressedBytes``.
    public func read(_ data: Data) throws(LottieError) -> LottieDocument {
        guard data.count <= configuration.parser.maxInputBytes else {
            throw LottieError.inputTooLarge.with("input of \(data.count) bytes (limit \(configuration.parser.maxInputBytes))")
        }
        let parser = LottieParser(configuration: configuration.parser)
        switch LottieContainerFormat.sniff(data) {
        case .json:
            return LottieDocument(format: .json, manifest: nil,
                                  animations: [.init(id: nil, animation: try parser.parse(data), sourceByteCount: data.count)])
        case .gzip:
            let json = try GzipDecoder(maxOutputBytes: min(configuration.maxDecompressedBytes,
                                                           configuration.parser.maxInputBytes)).decompress(data)
            return LottieDocument(format: .gzip, manifest: nil,
                                  animations: [.init(id: nil, animation: try parser.parse(json), sourceByteCount: json.count)])
        case .zip:
            return try DotLottieReader(configuration: configuration).read(data)
        }
    }

    /// Reads the file at `path`, refusing files larger than `parser.maxInputBytes`.
    ///
    /// At most `parser.maxInputBytes + 1` bytes are read, so a larger file is refused
    /// (`inputTooLarge`) without being read whole; a file that cannot be opened or read is
    /// `unreadableFile`.
    public func read(contentsOfFile path: String) throws(LottieError) -> LottieDocument {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let limit = configuration.parser.maxInputBytes
            let read = try handle.read(upToCount: limit + 1) ?? Data()
            guard read.count <= limit else {
                throw LottieError.inputTooLarge.with("file larger than \(limit) bytes")
            }
            data = read
        } catch let error as LottieError {
            throw error
        } catch {
            throw LottieError.unreadableFile.with("cannot read \(path): \(error)")
        }
        return try read(data)
    }
}
