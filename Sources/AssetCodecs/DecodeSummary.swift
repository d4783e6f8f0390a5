/// What a decode into a caller's buffer wrote there.
public struct DecodeSummary: Sendable, Hashable {
    public var header: ImageHeader
    public var width: Int
    public var height: Int
    public var bytesPerRow: Int
    public var warnings: [String]
}
