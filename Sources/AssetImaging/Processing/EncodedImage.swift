/// An encoded transform output: its bytes, format and size.
public struct EncodedImage: Sendable, Hashable {
    /// The encoded bytes.
    public var bytes: [UInt8]
    /// Their format.
    public var format: OutputFormat
    /// The output width in pixels.
    public var width: Int
    /// The output height in pixels.
    public var height: Int

    /// Creates an output description.
    public init(bytes: [UInt8], format: OutputFormat, width: Int, height: Int) {
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
    }

    /// The media type, `image/webp`.
    public var mediaType: String { format.mediaType }
}
