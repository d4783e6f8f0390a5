import AssetImaging
import AssetVideoFrames
import Foundation

/// What `GET /v1/storyboard` asks for, read from its query:
/// `url` (an http or https video), `interval` (seconds between tiles: `10s`, `2.5`; default 10;
/// kept to the millisecond), `w`/`width` and `h`/`height` (a tile's size, 1 to 16383; default 160
/// wide), `columns` (tiles a row, 1 to 100; default 10), `frames` (`key`, the default: each tile is
/// the key frame at or before its time; `exact`: the frame at its time), `format` (`vtt`, the
/// default, `json`, or the sprite itself: `jpg`/`jpeg` or `webp`), `sprite` (the sprite's format
/// the VTT and JSON point to: `jpg`, the default, or `webp`) and `sig`.
///
/// - **Signing**: with a signer, `sig` must be the storyboard's signature
///   (``ImageURLSigner/signature(forStoryboard:sprite:source:)``), checked before anything is
///   fetched, with the refusals `/v1/image` gives: none is 403 `signature_required`; one that does
///   not match, or a request that does not parse, is 403 `bad_signature`.
/// - A key given twice is a 400: the request must mean one storyboard.
struct StoryboardTarget: Sendable {
    /// What the answer is.
    typealias Answer = StoryboardTargets.Answer

    /// The keys a storyboard request reads.
    static let keys: Set<String> = ["url", "interval", "w", "width", "h", "height", "columns", "frames", "format", "sprite", "sig"]

    let source: String
    let spec: VideoStoryboardSpec
    let answer: Answer
    /// The sprite's format.
    let spriteFormat: OutputFormat

    /// The target of `incoming`, its signature checked with `signer` when there is one.
    init(_ incoming: IncomingRequest, signer: ImageURLSigner? = nil) throws {
        let source = try incoming.requiredParameter("url")
        let lowered = source.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw AssetServerError.invalidParameter("url", "must be an absolute http or https URL of a video")
        }
        var seen = Set<String>()
        for item in incoming.query where Self.keys.contains(item.name) {
            guard seen.insert(item.name).inserted else { throw AssetServerError.invalidParameter(item.name, "is given twice") }
        }
        let signature = incoming.parameter("sig")
        if signer != nil, signature == nil { throw AssetServerError.signatureRequired }
        do {
            try self.init(source: source, parsing: incoming)
        } catch {
            // with signing, a request that does not parse cannot carry a valid signature
            if signer != nil { throw AssetServerError.badSignature }
            throw error
        }
        if let signer, let signature {
            guard signer.isValid(signature, forStoryboard: spec, sprite: spriteFormat, source: source) else {
                throw AssetServerError.badSignature
            }
        }
    }

    private init(source: String, parsing incoming: IncomingRequest) throws {
        self.source = source
        var interval = 10.0
        if let text = incoming.parameter("interval") {
            let number = text.hasSuffix("s") ? text.dropLast() : Substring(text)
            guard let value = Double(number), value.isFinite, value >= 0.1, value <= 3_600 else {
                throw AssetServerError.invalidParameter("interval", "must be seconds between 0.1 and 3600 (10s, 2.5)")
            }
            // to the millisecond, as the sprite URL and the signed text write it
            interval = (value * 1000).rounded() / 1000
        }
        let width = try Self.side(incoming, "w", "width")
        let height = try Self.side(incoming, "h", "height")
        var columns = 10
        if let text = incoming.parameter("columns") {
            guard let value = Int(text), (1...100).contains(value) else {
                throw AssetServerError.invalidParameter("columns", "must be 1 to 100")
            }
            columns = value
        }
        var keyFramesOnly = true
        switch incoming.parameter("frames")?.lowercased() {
        case nil, "key": break
        case "exact": keyFramesOnly = false
        default: throw AssetServerError.invalidParameter("frames", "must be key or exact")
        }
        spec = VideoStoryboardSpec(
            interval: interval, tileWidth: width ?? (height == nil ? 160 : nil), tileHeight: height, columns: columns,
            keyFramesOnly: keyFramesOnly)
        let sprite = try Self.spriteFormat(incoming.parameter("sprite"), name: "sprite") ?? .jpeg
        switch incoming.parameter("format")?.lowercased() {
        case nil, "vtt":
            (answer, spriteFormat) = (.vtt, sprite)
        case "json":
            (answer, spriteFormat) = (.json, sprite)
        case let other?:
            guard let format = try? Self.spriteFormat(other, name: "format") else {
                throw AssetServerError.invalidParameter("format", "must be vtt, json, jpg or webp")
            }
            (answer, spriteFormat) = (.sprite, format)
        }
    }

    /// The sprite's URL, relative to the storyboard's (`/v1/storyboard`): the same storyboard with
    /// `format` set to the sprite's, and `signature` (the storyboard's, which is its sprite's too)
    /// when the server signs.
    func spriteURL(signature: String? = nil) -> String {
        StoryboardTargets.relative(for: spec, sprite: spriteFormat, source: source, answer: .sprite, signature: signature)
    }

    private static func side(_ incoming: IncomingRequest, _ short: String, _ long: String) throws -> Int? {
        guard let text = incoming.parameter(short) ?? incoming.parameter(long) else { return nil }
        guard let value = Int(text), (1...16_383).contains(value) else {
            throw AssetServerError.invalidParameter(short, "must be 1 to 16383")
        }
        return value
    }

    private static func spriteFormat(_ text: String?, name: String) throws -> OutputFormat? {
        switch text?.lowercased() {
        case nil: return nil
        case "jpg", "jpeg": return .jpeg
        case "webp": return .webp
        default: throw AssetServerError.invalidParameter(name, "must be jpg or webp")
        }
    }

    /// A number as short as it is exact to the millisecond: `10`, `2.5`.
    static func number(_ value: Double) -> String {
        let milli = Int((value * 1000).rounded())
        if milli % 1000 == 0 { return String(milli / 1000) }
        var text = String(milli / 1000) + "."
        let fraction = String(milli % 1000)
        text += String(repeating: "0", count: 3 - fraction.count) + fraction
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A query value with everything but unreserved characters percent-encoded.
    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
