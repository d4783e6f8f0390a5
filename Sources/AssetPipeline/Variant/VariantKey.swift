import AssetImaging
import AssetLoading
import AssetStorage

/// The cache key of a derived entry: `variant` + the source's cache key + its validator + the
/// canonical transform + the format key + the renderer's version (``RendererVersion``), separated by
/// U+001F. A changed source has another validator, and a new build of the code or the libraries that
/// make the pixels another renderer version, so old variants are never looked up again (they age
/// out of the caches); the variant's strong `ETag` is a checksum of this key.
public enum VariantKey {
    /// The key of `transform` of the source stored under `sourceKey` with `validator`, for a caller
    /// that accepts `accepted`, made by `renderer` (``RendererVersion/current`` by default).
    public static func key(
        sourceKey: String, validator: String, transform: ImageTransform, accepted: [OutputFormat]?,
        renderer: String = RendererVersion.current
    ) -> String {
        ["variant", sourceKey, validator, transform.canonicalText, formatKey(transform.format, accepted: accepted), renderer]
            .joined(separator: "\u{1F}")
    }

    /// The format as far as it is known before the source is decoded: the format asked for, the
    /// format `auto` picks from `accepted` when that does not depend on the image (AVIF, WebP), or
    /// `auto-` with the rest of the choice (the source decides between JPEG and PNG, and the same
    /// source always decides the same way). An animated source's `auto` is WebP when the client
    /// takes it, else GIF: a client that takes AVIF and not WebP gets `avif,gif`, so that it never
    /// shares a key with one that takes both (whose animations are WebP).
    public static func formatKey(_ choice: ImageTransform.FormatChoice, accepted: [OutputFormat]?) -> String {
        if let format = choice.formatIndependentOfImage(accepted: accepted) {
            if case .auto = choice, let accepted, format == .avif, !accepted.contains(.webp) { return "avif,gif" }
            return format.rawValue
        }
        guard let accepted else { return "auto-source" }
        return "auto-" + [OutputFormat.jpeg, .png].filter(accepted.contains).map(\.rawValue).joined(separator: "-")
    }

    /// The validator of a loaded source: its strong or weak `ETag`, else `Last-Modified`, else nil
    /// (the caller then hashes the bytes).
    static func validator(of response: AssetResponse) -> String? {
        if let tag = response.headers.values(for: "ETag").first ?? response.metadata?.eTag { return "etag:" + tag }
        if let date = response.headers.values(for: "Last-Modified").first ?? response.metadata?.lastModified { return "lm:" + date }
        if let checksum = response.metadata?.checksum { return "sum:" + checksum }
        return nil
    }

    /// The content type a derived entry is stored with: the media type plus the size, which a disk
    /// hit reads back (`image/webp;w=512;h=341`).
    static func contentType(of format: OutputFormat, width: Int, height: Int) -> String {
        "\(format.mediaType);w=\(width);h=\(height)"
    }

    /// The format and size of a derived entry's stored content type (`image/webp;w=512;h=341`), or
    /// nil when it is not one of ours.
    public static func facts(ofContentType contentType: String) -> (format: OutputFormat, width: Int, height: Int)? {
        parse(contentType: contentType)
    }

    /// The format and size of a stored content type, or nil when it is not one of ours.
    static func parse(contentType: String) -> (format: OutputFormat, width: Int, height: Int)? {
        let parts = contentType.split(separator: ";")
        guard parts.count == 3, let format = OutputFormat(mediaType: String(parts[0])),
            parts[1].hasPrefix("w="), parts[2].hasPrefix("h="),
            let width = Int(parts[1].dropFirst(2)), let height = Int(parts[2].dropFirst(2)), width > 0, height > 0
        else { return nil }
        return (format, width, height)
    }
}
