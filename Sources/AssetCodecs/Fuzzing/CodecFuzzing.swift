import CAssetCodecs

/// The per-format fuzzing entry of the decoders (`scripts/fuzz webp|avif|heif|gif|tiff|svg|jxl`):
/// the bytes go to one format's C entry points whatever their signature says, so that a mutation
/// that breaks the magic still reaches the library's parser.
@_spi(Fuzzing)
public enum CodecFuzzing {
    /// The format a fuzz target's name selects (`jxl` for JPEG XL), or nil.
    public static func format(named name: String) -> ImageFormat? {
        name == "jxl" ? .jpegXL : ImageFormat(rawValue: name)
    }

    /// Reads the header, the metadata and a decode at the header's size (and, for a format that
    /// decodes at any size, at a small size the last byte picks) of `bytes` as `format`, under a
    /// budget of 4 megapixels. Traps (`fatalError`) when a promise breaks: a success with an empty
    /// or over-budget size.
    public static func decode(_ bytes: UnsafeRawBufferPointer, as format: ImageFormat) {
        guard bytes.count > 0, let codec = FormatCodec.table[format] else { return }
        let decoder = ImageDecoder(configuration: .init(pixelBudget: 4_000_000, maxInputBytes: 1 << 20))
        let limits = decoder.limits
        guard let header = try? CodecBridge.header(format: format, bytes: bytes, limits: limits, page: nil) else { return }
        if header.width <= 0 || header.height <= 0 || header.width * header.height > 4_000_000 {
            fatalError("a header of \(header.width)x\(header.height) passed the budget")
        }
        _ = try? CodecBridge.metadata(format: format, bytes: bytes, limits: limits, page: nil)
        var sizes = [(header.width, header.height)]
        if codec.scaling == .anySize {
            let side = Int(bytes[bytes.count - 1] % 64) + 1
            sizes.append((side, max(1, side * header.height / header.width)))
        }
        for (width, height) in sizes {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: width * height * 4, alignment: 16)
            defer { buffer.deallocate() }
            _ = try? CodecBridge.decode(
                format: format, bytes: bytes, scaleDenominator: 1, limits: limits, page: nil, width: width, height: height,
                into: buffer, bytesPerRow: width * 4)
        }
        if codec.hasPages {
            _ = try? CodecBridge.header(format: format, bytes: bytes, limits: limits, page: 1)
        }
    }
}
