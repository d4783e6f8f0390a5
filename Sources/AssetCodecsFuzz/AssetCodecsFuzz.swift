@_spi(Fuzzing) import AssetCodecs
import AssetFuzzSupport
@_spi(Fuzzing) import AssetImaging
import Foundation

/// The format a per-format target forces (`ASSETPIPE_FUZZ_FORMAT=heif`: scripts/fuzz heif), or nil
/// for the codecs target, which sniffs.
let forcedFormat = ProcessInfo.processInfo.environment["ASSETPIPE_FUZZ_FORMAT"].flatMap(CodecFuzzing.format(named:))

/// Runs one input through every decoding path (or, for a per-format target, through that
/// format's decoder and, when the signature still says that format, a transform): the header, a full decode, a downscaled decode
/// (DCT scaling and the area resize), a decode into a caller's buffer, a row-by-row decode to
/// RGB in small bands, and a transform (shrink-on-load, the streamed resampler, orientation,
/// colour, crop or pad, an encoder) chosen by the input's last bytes. Limits are lower than the
/// defaults so that each run stays fast; failures must be `CodecError`s or `ImagingError`s.
func fuzzOne(_ bytes: UnsafeRawBufferPointer) {
    if let forcedFormat {
        CodecFuzzing.decode(bytes, as: forcedFormat)
        if ImageFormat(sniffing: bytes) == forcedFormat { ImagingFuzzing.transform(bytes) }
        return
    }
    ImagingFuzzing.transform(bytes)
    let configuration = ImageDecoder.Configuration(pixelBudget: 4_000_000, maxInputBytes: 1 << 20)
    let decoder = ImageDecoder(configuration: configuration)
    guard let header = try? decoder.header(of: bytes) else { return }
    if let decoded = try? decoder.decode(bytes) {
        let bitmap = decoded.bitmap
        if bitmap.width != header.width || bitmap.height != header.height || bitmap.cost != bitmap.width * bitmap.height * 4 {
            fatalError("the bitmap does not match its header")
        }
    }
    var small = configuration
    small.maxDimension = Int(bytes[bytes.count - 1] % 40) + 1
    let scaled = ImageDecoder(configuration: small)
    _ = try? scaled.decode(bytes)
    let size = scaled.outputSize(for: header)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size.width * size.height * 4, alignment: 16)
    defer { buffer.deallocate() }
    _ = try? scaled.decode(bytes, into: buffer)

    if let reader = try? decoder.rowReader(for: [UInt8](bytes), layout: .rgb8) {
        let band = UnsafeMutableRawBufferPointer.allocate(byteCount: reader.bytesPerRow * 5, alignment: 16)
        defer { band.deallocate() }
        var rows = 0
        while let count = try? reader.readRows(into: band), count > 0 { rows += count }
        if reader.isComplete && rows != header.height {
            fatalError("the row reader finished after \(rows) of \(header.height) rows")
        }
    }
}

/// libFuzzer's target when built by scripts/fuzz-codecs (`-sanitize=fuzzer`); without the fuzzer,
/// replays the files named on the command line through the same paths.
@main
struct AssetCodecsFuzz {
    static func main() throws { try FuzzDriver.main(fuzzOne) }
}
