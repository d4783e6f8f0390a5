/// A dotLottie `manifest.json`: its version, generator, author and the animations it lists.
public struct DotLottieManifest: Sendable, Equatable {
    /// One entry of `animations`: its `id` plus player settings kept untyped.
    public struct Animation: Sendable, Equatable {
        /// `id`: the animation's name in the archive (`animations/<id>.json` or `a/<id>.json`).
        public var id: String
        /// The entry's other members (player settings such as `loop` or `speed`), kept untyped.
        public var extra: JSONObject
    }

    /// `version`: "1.0"/"1" (folders `animations/`, `images/`) or "2" (folders `a/`, `i/`).
    public var version: String?
    /// `generator`: the tool that wrote the archive (`nil` when absent or not a string).
    public var generator: String?
    /// `author` (`nil` when absent or not a string).
    public var author: String?
    /// `animations`: the entries that have a string `id`, in manifest order (the others are skipped).
    public var animations: [Animation]
    /// The whole manifest as it came.
    public var json: JSONObject

    /// `true` for a version 2 manifest (`a/` and `i/` folders).
    public var isVersion2: Bool {
        guard let version else { return false }
        return version == "2" || version.hasPrefix("2.")
    }

    init(json: JSONObject) {
        self.json = json
        switch json["version"] {
        case .string(let text)?: version = text
        case .int(let number)?: version = String(number)
        case .double(let number)?: version = number.description
        default: version = nil
        }
        generator = json["generator"]?.stringValue
        author = json["author"]?.stringValue
        animations = []
        for case .object(let entry) in json["animations"]?.arrayValue ?? [] {
            guard let id = entry["id"]?.stringValue else { continue }
            var extra = entry
            extra.members.removeAll { $0.key == "id" }
            animations.append(Animation(id: id, extra: extra))
        }
    }
}
