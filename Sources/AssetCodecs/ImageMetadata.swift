/// The metadata blocks of an image that a transform may keep or act on: its ICC profile and its
/// EXIF block. Read by ``ImageDecoder/metadata(of:)``.
public struct ImageMetadata: Sendable, Hashable {
    /// The embedded ICC profile (JPEG: the APP2 `ICC_PROFILE` chunks reassembled; PNG: `iCCP`
    /// inflated), or nil.
    public var iccProfile: [UInt8]?
    /// The EXIF block as a TIFF structure (without the `Exif\0\0` prefix), or nil.
    public var exif: [UInt8]?

    /// Creates metadata from its blocks.
    public init(iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil) {
        self.iccProfile = iccProfile
        self.exif = exif
    }
}
