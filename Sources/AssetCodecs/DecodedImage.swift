/// A decoded image: its bitmap, the header it was decoded from, and the decoder's warnings.
public struct DecodedImage: Sendable, Hashable {
    public var bitmap: Bitmap
    public var header: ImageHeader
    /// What the library reported while completing the decode (for example "Premature end of JPEG
    /// file" for a truncated JPEG whose missing rows are filled in gray). Empty for a clean decode.
    public var warnings: [String]
}
