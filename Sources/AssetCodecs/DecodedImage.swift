/// A decoded image: its bitmap, the header it was decoded from, and the decoder's warnings.
public struct DecodedImage: Sendable, Hashable {
    /// The pixels: RGBA8, straight alpha, no row padding, at the size
    /// ``ImageDecoder/outputSize(for:)`` gives (`maxDimension` applied).
    public var bitmap: Bitmap
    /// The header the image was decoded from (its declared size, before `maxDimension`).
    public var header: ImageHeader
    /// What the library reported while completing the decode (for example "Premature end of JPEG
    /// file" for a truncated JPEG whose missing rows are filled in gray). Empty for a clean decode.
    ///
    /// At most 32 warnings are kept word for word; when some were not, a last entry
    /// `(N more warnings)` counts them.
    public var warnings: [String]

    /// A decoded image of `bitmap`, decoded from an image whose header is `header` (a decode made
    /// elsewhere, in a worker process say), with the decoder's `warnings`.
    public init(bitmap: Bitmap, header: ImageHeader, warnings: [String] = []) {
        self.bitmap = bitmap
        self.header = header
        self.warnings = warnings
    }
}
