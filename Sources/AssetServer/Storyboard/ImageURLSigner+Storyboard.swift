import AssetImaging
import AssetVideoFrames

extension ImageURLSigner {
    /// The text that is signed for the storyboard `spec` of `source` with a `sprite` sheet:
    /// `storyboard:interval=10,w=160,h=-,columns=10,frames=key,sprite=jpg`, a newline, the source.
    ///
    /// An image transform's canonical text is `key=value` pairs or `original`, never `storyboard:…`,
    /// so a storyboard's signature can never pass for an image's, nor one's for the other's.
    static func signedText(storyboard spec: VideoStoryboardSpec, sprite: OutputFormat, source: String) -> String {
        "storyboard:interval=" + StoryboardTarget.number(spec.interval)
            + ",w=" + (spec.tileWidth.map(String.init) ?? "-") + ",h=" + (spec.tileHeight.map(String.init) ?? "-")
            + ",columns=" + String(spec.columns) + ",frames=" + (spec.keyFramesOnly ? "key" : "exact")
            + ",sprite=" + StoryboardTargets.spriteName(sprite) + "\n" + source
    }

    /// The signature of the storyboard `spec` of `source` whose sprite is `sprite` (JPEG or WebP):
    /// one signature for its WebVTT, its JSON and its sprite, which are three views of one
    /// storyboard, so that the sprite URLs a signed VTT or JSON names carry it too.
    public func signature(forStoryboard spec: VideoStoryboardSpec, sprite: OutputFormat = .jpeg, source: String) -> String {
        signature(ofText: Self.signedText(storyboard: spec, sprite: sprite, source: source))
    }

    /// Whether `signature` is the signature of the storyboard `spec` of `source` with a `sprite` sheet.
    public func isValid(_ signature: String, forStoryboard spec: VideoStoryboardSpec, sprite: OutputFormat = .jpeg, source: String) -> Bool {
        isValid(signature, ofText: Self.signedText(storyboard: spec, sprite: sprite, source: source))
    }

    /// The signed storyboard request: `/v1/storyboard?url=<source>&interval=10&w=160&columns=10&format=vtt&sig=<signature>`.
    public func storyboardTarget(
        for spec: VideoStoryboardSpec, sprite: OutputFormat = .jpeg, source: String, answer: StoryboardTargets.Answer = .vtt
    ) -> String {
        StoryboardTargets.query(
            for: spec, sprite: sprite, source: source, answer: answer,
            signature: signature(forStoryboard: spec, sprite: sprite, source: source))
    }
}

/// How a storyboard request is spelled: `/v1/storyboard?url=<source>&interval=…&w=…&columns=…&format=…[&sig=…]`.
public enum StoryboardTargets {
    /// What a storyboard request answers.
    public enum Answer: String, Sendable {
        /// The WebVTT thumbnails track (`format=vtt`).
        case vtt
        /// The same as JSON (`format=json`).
        case json
        /// The sprite sheet itself (`format=jpg` or `format=webp`).
        case sprite
    }

    /// The query form of the storyboard `spec` of `source` with a `sprite` sheet, answering `answer`,
    /// with `signature` when given: `/v1/storyboard?` and ``relative(for:sprite:source:answer:signature:)``.
    public static func query(
        for spec: VideoStoryboardSpec, sprite: OutputFormat = .jpeg, source: String, answer: Answer = .vtt, signature: String? = nil
    ) -> String {
        "/v1/" + relative(for: spec, sprite: sprite, source: source, answer: answer, signature: signature)
    }

    /// The request relative to another storyboard's URL (`storyboard?url=…`), as the WebVTT and
    /// JSON name their sprite. Every value is percent-encoded but unreserved characters; the keys
    /// come in one order: `url`, `interval`, `w`, `h`, `columns`, `frames` (when `exact`),
    /// `format`, `sprite` (when a VTT or JSON points to a WebP sprite), `sig`.
    public static func relative(
        for spec: VideoStoryboardSpec, sprite: OutputFormat = .jpeg, source: String, answer: Answer = .vtt, signature: String? = nil
    ) -> String {
        var items = [("url", source), ("interval", StoryboardTarget.number(spec.interval))]
        if let width = spec.tileWidth { items.append(("w", String(width))) }
        if let height = spec.tileHeight { items.append(("h", String(height))) }
        items.append(("columns", String(spec.columns)))
        if !spec.keyFramesOnly { items.append(("frames", "exact")) }
        switch answer {
        case .sprite:
            items.append(("format", spriteName(sprite)))
        case .vtt, .json:
            items.append(("format", answer.rawValue))
            if sprite != .jpeg { items.append(("sprite", spriteName(sprite))) }
        }
        if let signature { items.append(("sig", signature)) }
        return "storyboard?" + items.map { "\($0.0)=\(StoryboardTarget.escaped($0.1))" }.joined(separator: "&")
    }

    /// A sprite format's name in a query: `jpg` or `webp`.
    static func spriteName(_ format: OutputFormat) -> String {
        format == .webp ? "webp" : "jpg"
    }
}
