import AssetImaging
import AssetVideoFrames
import Foundation

/// What `GET /v1/storyboard` asks for, read from its query:
/// `url` (an http or https video), `interval` (seconds between tiles: `10s`, `2.5`; default 10),
/// `w`/`width` and `h`/`height` (a tile's size, 1 to 16383; default 160 wide), `columns` (tiles a
/// row, 1 to 100; default 10), `frames` (`key`, the default: each tile is the key frame at or
/// before its time; `exact`: the frame at its time), `format` (`vtt`, the default, `json`, or the
/// sprite itself: `jpg`/`jpeg` or `webp`) and `sprite` (the sprite's format the VTT and JSON point
/// to: `jpg`, the default, or `webp`).
struct StoryboardTarget: Sendable {
    /// What the answer is.
    enum Answer: String, Sendable {
        case vtt, json, sprite
    }

    let source: String
    let spec: VideoStoryboardSpec
    let answer: Answer
    /// The sprite's format.
    let spriteFormat: OutputFormat

    init(_ incoming: IncomingRequest) throws {
        source = try incoming.requiredParameter("url")
        let lowered = source.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw AssetServerError.invalidParameter("url", "must be an absolute http or https URL of a video")
        }
        var interval = 10.0
        if let text = incoming.parameter("interval") {
            let number = text.hasSuffix("s") ? text.dropLast() : Substring(text)
            guard let value = Double(number), value.isFinite, value >= 0.1, value <= 3_600 else {
                throw AssetServerError.invalidParameter("interval", "must be seconds between 0.1 and 3600 (10s, 2.5)")
            }
            interval = value
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
    /// `format` set to the sprite's.
    var spriteURL: String {
        var items = [("url", source), ("interval", StoryboardTarget.number(spec.interval))]
        if let width = spec.tileWidth { items.append(("w", String(width))) }
        if let height = spec.tileHeight { items.append(("h", String(height))) }
        items.append(("columns", String(spec.columns)))
        if !spec.keyFramesOnly { items.append(("frames", "exact")) }
        items.append(("format", spriteFormat == .webp ? "webp" : "jpg"))
        return "storyboard?" + items.map { "\($0.0)=\(Self.escaped($0.1))" }.joined(separator: "&")
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
