import AssetImaging
import Foundation

/// What a `/v1/image` request for an encoded variant names: the source URL and the transform, read
/// from the query form or the path form, with presets expanded and the signature checked.
///
/// - **Query form**: `/v1/image?url=U&w=256&h=256&fit=cover&format=webp[&preset=P][&sig=S]`.
/// - **Path form**: `/v1/image/{S or _}/{options or -}/{base64url U}[.{ext}]`; options are
///   `key:value` (or `key=value`) pairs separated by `,`, including `preset:P`, percent-decoded
///   when they decode (`frame:50%25` is `frame=50%`); the extension picks the format (none: `auto`).
/// - **Frames**: `frame=30`, `frame=50%` or `frame=1.5s` (a key like the others: in presets, in the
///   signed text) makes the variant of a still frame of an animation; `animate=1` (with `fps`,
///   `from`, `to`) makes a Lottie animation or a video's preview into an animation.
/// - **Presets** expand in place; a preset's keys cannot be given again. With
///   ``AssetServer/ImageService/presetsOnly``, only `preset` and `format` may be given.
/// - **Signing**: with a signer, the signature must match the canonical transform and the source
///   (``ImageURLSigner``), checked before anything is fetched.
struct VariantTarget: Sendable {
    let source: String
    let transform: ImageTransform

    /// The keys of the query form that are not transform keys.
    static let ownKeys: Set<String> = ["url", "sig", "preset", "kind", "maxPixels"]
    /// The raw pixel formats the endpoint writes itself.
    static let rawFormats: Set<String> = ["pam", "ppm", "rgba"]
    /// Query keys that make a request a variant request.
    static let transformKeys: Set<String> = [
        "frame", "page", "w", "width", "h", "height", "fit", "enlarge", "gravity", "g", "dpr", "bg", "background", "q", "quality",
        "lossless", "progressive", "kernel", "metadata", "icc", "preset", "animate", "fps", "from", "to",
    ]

    /// Whether a query-form request asks for a variant (any transform key, or an encoded format)
    /// rather than raw pixels.
    static func isVariantQuery(_ incoming: IncomingRequest) -> Bool {
        isVariantQuery(incoming.query)
    }

    /// Whether query items ask for a variant.
    static func isVariantQuery(_ query: [(name: String, value: String)]) -> Bool {
        query.contains { item in
            let name = item.name.lowercased()
            if transformKeys.contains(name) { return true }
            if name == "format" || name == "f" { return !rawFormats.contains(item.value.lowercased()) }
            return false
        }
    }

    /// The target of a query-form request.
    init(query incoming: IncomingRequest, service: AssetServer.ImageService, maxOutputDimension: Int) throws {
        try self.init(query: incoming.query, service: service, maxOutputDimension: maxOutputDimension)
    }

    /// The target of a query form's items.
    init(query: [(name: String, value: String)], service: AssetServer.ImageService, maxOutputDimension: Int) throws {
        guard let url = query.first(where: { $0.name == "url" })?.value, !url.isEmpty else {
            throw AssetServerError.missingParameter("url")
        }
        if query.contains(where: { $0.name == "maxDimension" }) {
            throw AssetServerError.invalidParameter("maxDimension", "belongs to raw pixels; a variant takes w and h")
        }
        var pairs: [(String, String)] = []
        var presetName: String? = nil
        var signature: String? = nil
        var seenOwn = Set<String>()
        for item in query {
            if Self.ownKeys.contains(item.name) {
                guard seenOwn.insert(item.name).inserted else { throw AssetServerError.invalidParameter(item.name, "is given twice") }
                if item.name == "preset" { presetName = item.value }
                if item.name == "sig" { signature = item.value }
                continue
            }
            pairs.append((item.name, item.value))
        }
        try self.init(source: url, pairs: pairs, preset: presetName, signature: signature, service: service,
                      maxOutputDimension: maxOutputDimension)
    }

    /// The target of a path-form request: `rest` is the path after `/v1/image/`.
    init(path rest: Substring, service: AssetServer.ImageService, maxOutputDimension: Int) throws {
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw AssetServerError.invalidPath("must be /v1/image/{signature}/{options}/{base64url source}[.ext]")
        }
        var encoded = segments[2]
        var pairs: [(String, String)] = []
        if let dot = encoded.lastIndex(of: ".") {
            let ext = encoded[encoded.index(after: dot)...]
            guard let format = OutputFormat(pathExtension: String(ext)) else {
                throw AssetServerError.invalidPath("ends in an unknown format extension (jpeg, jpg, png, webp, avif)")
            }
            pairs.append(("format", format.rawValue))
            encoded = encoded[..<dot]
        }
        guard let bytes = Base64URL.decode(String(encoded)), !bytes.isEmpty,
            let source = String(bytes: bytes, encoding: .utf8)
        else { throw AssetServerError.invalidPath("has a source that is not base64url-encoded UTF-8") }
        var presetName: String? = nil
        // as the query form's values: percent-decoded, or taken as they are when they do not decode
        let options = segments[1].removingPercentEncoding ?? String(segments[1])
        if options != "-" && !options.isEmpty {
            for item in options.split(separator: ",") {
                guard let separator = item.firstIndex(where: { $0 == ":" || $0 == "=" }) else {
                    throw AssetServerError.invalidPath("has an option that is not key:value ('\(item.prefix(64))')")
                }
                let key = String(item[..<separator]), value = String(item[item.index(after: separator)...])
                if key == "preset" {
                    guard presetName == nil else { throw AssetServerError.invalidPath("names two presets") }
                    presetName = value
                } else {
                    pairs.append((key, value))
                }
            }
        }
        let signature = segments[0] == "_" ? nil : String(segments[0])
        try self.init(source: source, pairs: pairs, preset: presetName, signature: signature, service: service,
                      maxOutputDimension: maxOutputDimension)
    }

    private init(
        source: String, pairs: [(String, String)], preset presetName: String?, signature: String?,
        service: AssetServer.ImageService, maxOutputDimension: Int
    ) throws {
        if service.signer != nil, signature == nil { throw AssetServerError.signatureRequired }
        var all: [(String, String)] = []
        if let presetName {
            guard let preset = service.presets[presetName] else { throw AssetServerError.unknownPreset(presetName) }
            let text = preset.canonicalText
            if text != "original" {
                for item in text.split(separator: ",") {
                    let parts = item.split(separator: "=", maxSplits: 1)
                    all.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
                }
            }
        }
        if service.presetsOnly {
            if presetName == nil { throw AssetServerError.presetOnly }
            if pairs.contains(where: { !["format", "f"].contains($0.0.lowercased()) }) { throw AssetServerError.presetOnly }
        }
        all += pairs
        let transform: ImageTransform
        do {
            transform = try ImageTransform(pairs: all, maxOutputDimension: maxOutputDimension)
        } catch {
            // with signing, a request whose transform does not parse cannot carry a valid signature
            if service.signer != nil { throw AssetServerError.badSignature }
            throw error
        }
        if let signer = service.signer, let signature {
            guard signer.isValid(signature, for: transform, source: source) else { throw AssetServerError.badSignature }
        }
        self.source = source
        self.transform = transform
    }
}

/// The image formats a client takes, from its `Accept` field, for `format=auto`: AVIF and WebP
/// when it names them with a non-zero quality; JPEG and PNG always (every client that shows images
/// takes them, and `*/*` or no `Accept` at all means anything).
enum AcceptedImageFormats {
    /// The accepted formats, best first: `[avif, webp, jpeg, png]` for a browser of today.
    static func parse(_ accept: String?) -> [OutputFormat] {
        guard let accept else { return legacy }
        var avif = false, webp = false
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";")
            let type = parts[0].trimmingSpaces.lowercased()
            guard type == "image/avif" || type == "image/webp" else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let pair = parameter.trimmingSpaces.lowercased()
                guard pair.hasPrefix("q=") else { return false }
                return (Double(pair.dropFirst(2)) ?? 1) <= 0
            }
            if refused { continue }
            if type == "image/avif" { avif = true } else { webp = true }
        }
        switch (avif, webp) {
        case (true, true): return [.avif, .webp, .jpeg, .png]
        case (true, false): return [.avif, .jpeg, .png]
        case (false, true): return [.webp, .jpeg, .png]
        case (false, false): return legacy
        }
    }

    static let legacy: [OutputFormat] = [.jpeg, .png]

    /// The four lists ``parse(_:)`` can give, in the order of ``classIndex(_:)``.
    static let classes: [[OutputFormat]] = [[.avif, .webp, .jpeg, .png], [.avif, .jpeg, .png], [.webp, .jpeg, .png], legacy]

    /// The index in ``classes`` of what ``parse(_:)`` gives for `accept`, found without building
    /// the list when the field names the types plainly (the hot path's case).
    static func classIndex(_ accept: String?) -> Int {
        guard let accept else { return 3 }
        if !accept.utf8.contains(0x3B) {  // no parameters (no ';q=0'): the names decide
            let avif = accept.contains("image/avif"), webp = accept.contains("image/webp")
            return avif ? (webp ? 0 : 1) : (webp ? 2 : 3)
        }
        let list = parse(accept)
        return classes.firstIndex(of: list) ?? 3
    }
}
