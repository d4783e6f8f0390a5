/// What a decode into a caller's buffer wrote there.
///
/// The result of ``ImageDecoder/decode(_:into:bytesPerRow:)``: the pixels are in the caller's
/// buffer, RGBA8 with straight alpha, `height` rows of `width * 4` bytes, `bytesPerRow` apart.
public struct DecodeSummary: Sendable, Hashable {
    /// The header the image was decoded from (its declared size, before `maxDimension`).
    public var header: ImageHeader
    /// Width in pixels of the image written (after `maxDimension`).
    public var width: Int
    /// Height in pixels of the image written (after `maxDimension`).
    public var height: Int
    /// Bytes from the start of one row to the start of the next in the destination: the
    /// `bytesPerRow` passed to the decode, else `width * 4`.
    public var bytesPerRow: Int
    /// What the library reported while completing the decode; empty for a clean decode (see
    /// ``DecodedImage/warnings``).
    public var warnings: [String]
}
