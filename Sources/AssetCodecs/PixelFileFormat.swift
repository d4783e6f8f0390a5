/// Uncompressed pixel files: netpbm PAM (RGBA), netpbm PPM (RGB, alpha dropped) or raw RGBA rows,
/// written from a ``Bitmap`` or from an ``ImageRowReader`` a band at a time, so that a caller
/// (`assetpipe decode --output`, an HTTP response) never holds a second copy of the image.
///
/// - **Bytes**: a header (``header(width:height:)``: none for `.rgba`), then the rows top to
///   bottom with no padding. ``byteCount(width:height:)`` is the whole file's size, known before
///   the first pixel is decoded (a `Content-Length`).
/// - **Output**: every `write` hands the bytes, in order, to a `sink` closure, in pieces of about
///   `bandBytes`; what the sink throws stops the write and is rethrown.
///
/// ```swift
/// let format = PixelFileFormat(path: "out.ppm")!
/// let reader = try ImageDecoder().rowReader(for: data, layout: format.layout)
/// try format.write(reader) { bytes in try file.write(contentsOf: bytes) }
/// ```
public enum PixelFileFormat: String, Sendable, Hashable, CaseIterable {
    /// netpbm P7: `TUPLTYPE RGB_ALPHA`, `MAXVAL 255`, rows of RGBA.
    case pam
    /// netpbm P6: `MAXVAL 255`, rows of RGB, alpha dropped (not composited).
    case ppm
    /// Raw RGBA rows, no header.
    case rgba

    /// Band size of the `write` methods by default: 256 KiB, which stays in a core's L2 cache
    /// between the decode and the copy out.
    public static let defaultBandBytes = 256 << 10

    /// The format a path's extension names (`.pam`, `.ppm`, `.rgba`, any case), or nil.
    public init?(path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        self.init(rawValue: name[name.index(after: dot)...].lowercased())
    }

    /// The row layout the pixels are written in: `.rgb8` for PPM, `.rgba8` otherwise.
    public var layout: ImageRowReader.Layout { self == .ppm ? .rgb8 : .rgba8 }

    /// A media type for the bytes: `image/x-portable-arbitrarymap`, `image/x-portable-pixmap`, or
    /// `application/octet-stream` for raw rows.
    public var mediaType: String {
        switch self {
        case .pam: "image/x-portable-arbitrarymap"
        case .ppm: "image/x-portable-pixmap"
        case .rgba: "application/octet-stream"
        }
    }

    /// The header that goes before the rows of a `width` x `height` image (empty for `.rgba`).
    public func header(width: Int, height: Int) -> [UInt8] {
        switch self {
        case .pam: Array("P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8)
        case .ppm: Array("P6\n\(width) \(height)\n255\n".utf8)
        case .rgba: []
        }
    }

    /// The size of the whole file for a `width` x `height` image: header plus rows.
    public func byteCount(width: Int, height: Int) -> Int {
        header(width: width, height: height).count + width * height * layout.bytesPerPixel
    }

    /// Writes `bitmap` (RGBA) in this format: the header, then bands of rows of about `bandBytes`
    /// bytes, converted through one band-sized buffer for PPM and handed out in place otherwise.
    public func write(
        _ bitmap: Bitmap, bandBytes: Int = defaultBandBytes, to sink: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        let head = header(width: bitmap.width, height: bitmap.height)
        if !head.isEmpty { try head.withUnsafeBytes { try sink($0) } }
        try writeRows(of: bitmap, rows: 0..<bitmap.height, bandBytes: bandBytes, to: sink)
    }

    /// Writes the rows `rows` of `bitmap` (RGBA) in this format, without the header: bands of about
    /// `bandBytes` bytes, so that a caller who must wait between bands (a network response) can
    /// write a band at a time.
    public func writeRows(
        of bitmap: Bitmap, rows: Range<Int>, bandBytes: Int = defaultBandBytes, to sink: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        let rows = rows.clamped(to: 0..<bitmap.height)
        guard bitmap.width > 0, !rows.isEmpty else { return }
        let outRow = bitmap.width * layout.bytesPerPixel
        let bandRows = max(1, bandBytes / outRow)
        try bitmap.pixels.withUnsafeBytes { pixels in
            if layout == .rgba8 && bitmap.bytesPerRow == outRow {
                var row = rows.lowerBound
                while row < rows.upperBound {
                    let count = min(bandRows, rows.upperBound - row)
                    try sink(UnsafeRawBufferPointer(rebasing: pixels[(row * outRow)..<((row + count) * outRow)]))
                    row += count
                }
                return
            }
            let band = UnsafeMutableRawBufferPointer.allocate(byteCount: bandRows * outRow, alignment: 16)
            defer { band.deallocate() }
            var row = rows.lowerBound
            while row < rows.upperBound {
                let count = min(bandRows, rows.upperBound - row)
                for index in 0..<count {
                    let from = pixels.baseAddress! + (row + index) * bitmap.bytesPerRow
                    let to = band.baseAddress! + index * outRow
                    if layout == .rgba8 {
                        to.copyMemory(from: from, byteCount: outRow)
                    } else {
                        PixelRows.dropAlpha(from: from, to: to, pixels: bitmap.width)
                    }
                }
                try sink(UnsafeRawBufferPointer(rebasing: band[0..<(count * outRow)]))
                row += count
            }
        }
    }

    /// Decodes the rest of `reader`'s rows and writes them in this format: the header first (when
    /// no row has been read yet), then each band as it is decoded, through one buffer of about
    /// `bandBytes` bytes. The reader's layout must be this format's ``layout``.
    /// - Throws: `CodecError` from the decode, or what `sink` throws.
    public func write(
        _ reader: ImageRowReader, bandBytes: Int = defaultBandBytes, to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        precondition(reader.layout == layout, "the reader's layout is not this format's")
        if reader.rowsRead == 0 {
            let head = header(width: reader.width, height: reader.height)
            if !head.isEmpty { try head.withUnsafeBytes { try sink($0) } }
        }
        let rows = reader.bandRows(forBytes: bandBytes)
        let band = UnsafeMutableRawBufferPointer.allocate(byteCount: rows * reader.bytesPerRow, alignment: 64)
        defer { band.deallocate() }
        while true {
            let count = try reader.readRows(into: band)
            if count == 0 { return }
            try sink(UnsafeRawBufferPointer(rebasing: band[0..<(count * reader.bytesPerRow)]))
        }
    }

    /// The whole file's bytes for `bitmap`.
    public func encode(_ bitmap: Bitmap) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount(width: bitmap.width, height: bitmap.height))
        write(bitmap) { bytes.append(contentsOf: $0) }
        return bytes
    }
}
