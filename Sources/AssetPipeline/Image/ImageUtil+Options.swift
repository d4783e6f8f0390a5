import AssetCodecs
import AssetLoading

extension ImageUtil {
    /// How one image is loaded and decoded. The decoding options are part of the memory-cache key:
    /// the same URL asked for at two sizes is two entries.
    public struct Options: Sendable, Hashable {
        /// Scale the output down so that neither side exceeds this (see
        /// `ImageDecoder.Configuration.maxDimension`). Default: nil (full size).
        public var maxDimension: Int?
        /// Largest declared `width * height` accepted, checked on the header before any pixel memory
        /// is allocated. Default: 100_000_000 (100 megapixels).
        public var pixelBudget: Int
        /// Where the bytes may come from on a memory miss. With `CacheStrategy.networkOnly` the
        /// memory cache is not read either. Default: `CacheStrategy.useProtocolCachePolicy`.
        public var strategy: CacheStrategy
        /// The cache key, or nil for the URL's default key (`AssetLoader.defaultCacheKey(for:)`).
        /// Supply one to share an entry between URLs, for example to drop a signed query string.
        public var cacheKey: String?
        /// Keep the decoded bitmap in the image memory cache. `false` decodes without memoizing (what
        /// a prefetch that only validates wants); a bitmap already in memory is still returned.
        /// Default: true.
        public var keepInMemory: Bool
        /// The image of a multi-image file (a TIFF's directory, a HEIF's top-level image, from 0).
        /// Default: nil, the first directory or the primary image.
        public var page: Int?

        /// Creates options; every parameter defaults to the value documented on its property.
        public init(
            maxDimension: Int? = nil,
            pixelBudget: Int = Options.defaultPixelBudget,
            strategy: CacheStrategy = .useProtocolCachePolicy,
            cacheKey: String? = nil,
            keepInMemory: Bool = true,
            page: Int? = nil
        ) {
            self.maxDimension = maxDimension
            self.pixelBudget = pixelBudget
            self.strategy = strategy
            self.cacheKey = cacheKey
            self.keepInMemory = keepInMemory
            self.page = page
        }

        /// `ImageDecoder`'s default pixel budget, 100 megapixels.
        public static let defaultPixelBudget = ImageDecoder.Configuration().pixelBudget

        /// The decoder configuration these options ask for.
        public func decoderConfiguration(maxInputBytes: Int) -> ImageDecoder.Configuration {
            ImageDecoder.Configuration(pixelBudget: pixelBudget, maxInputBytes: maxInputBytes, maxDimension: maxDimension, page: page)
        }

        /// What the memory-cache key adds to the cache key: nothing for the default decoding options.
        var keySuffix: String? {
            guard maxDimension != nil || pixelBudget != Self.defaultPixelBudget || page != nil else { return nil }
            let pageSuffix = page.map { ";page=\($0)" } ?? ""
            return "\u{1F}image;max=\(maxDimension.map(String.init) ?? "-");pixels=\(pixelBudget)\(pageSuffix)"
        }
    }
}
