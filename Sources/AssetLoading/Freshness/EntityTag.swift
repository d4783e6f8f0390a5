/// An entity tag (RFC 9110 8.8.3): an opaque quoted string, weak when prefixed by `W/`.
public struct EntityTag: Sendable, Hashable {
    /// Whether the tag is weak.
    public var isWeak: Bool
    /// The opaque tag, without quotes.
    public var opaqueTag: String

    /// Creates a tag from its opaque part (without quotes); strong unless `isWeak`.
    public init(opaqueTag: String, isWeak: Bool = false) {
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// Parses `"xyz"` or `W/"xyz"`; nil when the value is not a quoted entity tag.
    public init?(_ value: String) {
        var text = Substring(HeaderFields.trimmed(value))
        var weak = false
        if text.hasPrefix("W/") {
            weak = true
            text = text.dropFirst(2)
        }
        guard text.utf8.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return nil }
        let opaque = text.dropFirst().dropLast()
        guard !opaque.contains("\"") else { return nil }
        self.init(opaqueTag: String(opaque), isWeak: weak)
    }

    /// The field-value form, such as `W/"xyz"`.
    public var fieldValue: String { (self.isWeak ? "W/" : "") + "\"" + self.opaqueTag + "\"" }

    /// Strong comparison: both strong and the same opaque tag.
    public func stronglyMatches(_ other: EntityTag) -> Bool {
        !self.isWeak && !other.isWeak && self.opaqueTag == other.opaqueTag
    }

    /// Weak comparison: the same opaque tag, whatever the weakness.
    public func weaklyMatches(_ other: EntityTag) -> Bool {
        self.opaqueTag == other.opaqueTag
    }
}
