import AssetCodecs
import AssetWorkers

/// An image decoded in a worker process (a `WorkerPool`), for the formats of
/// ``ImageTransformJob/isolatedFormats``: `ImageDecoder.decode` runs there on bytes the request
/// carries, and the header, the warnings and the RGBA pixels come back. A crash, a hang or a
/// runaway allocation in the decoder ends the worker, never the caller.
///
/// ```
/// request: u64 pixelBudget | u64 maxInputBytes | u64 maxDimension (0: none) | u64 maxChunkBytes
///          | u64 page + 1 (0: none) | u8 pixels wanted (0: the header and a whole decode, no pixels back)
///          | source bytes
/// reply:   header | u16 warning count | (u16 length | text) per warning | u64 width | u64 height | RGBA rows
/// header:  u8 length | format | u64 width | u64 height | u64 channels | u64 bit depth | u8 interlaced
///          | u8 length | colour space | u8 alpha | u64 orientation (0: none) | u64 frames | u8 ICC
///          | u8 CICP | u64 primaries | u64 transfer | u64 matrix
/// ```
public enum ImageDecodeJob {
    /// The job's name in a worker's table.
    public static let name = "image-decode"

    /// The request of a decode of `source` under `configuration`; without `pixels`, the worker
    /// decodes the whole image but sends back only its header and warnings (a check that it decodes).
    public static func request(source: some Collection<UInt8>, configuration: ImageDecoder.Configuration, pixels: Bool) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 48 + source.count)
        writer.append(UInt64(clamping: max(0, configuration.pixelBudget)))
        writer.append(UInt64(clamping: max(0, configuration.maxInputBytes)))
        writer.append(UInt64(clamping: max(0, configuration.maxDimension ?? 0)))
        writer.append(UInt64(clamping: max(0, configuration.maxChunkBytes)))
        writer.append(configuration.page.map { UInt64(clamping: max(0, $0)) + 1 } ?? 0)
        writer.append(byte: pixels ? 1 : 0)
        writer.append(contentsOf: source)
        return writer.bytes
    }

    /// The worker's side: decodes what a ``request(source:configuration:pixels:)`` asks for.
    /// - Throws: the source's `CodecError`, reported to the parent.
    public static func handle(_ payload: [UInt8]) throws -> [UInt8] {
        var reader = WorkerPayloadReader(payload)
        guard let budget = reader.integer(), let maxInput = reader.word(), let dimension = reader.integer(),
            let chunk = reader.integer(), let page = reader.word(), page <= UInt64(Int32.max), let pixels = reader.byte()
        else { throw ImagingError.invalidTransform("the worker got a malformed decode request") }
        let configuration = ImageDecoder.Configuration(
            pixelBudget: budget, maxInputBytes: Int(clamping: maxInput), maxDimension: dimension == 0 ? nil : dimension,
            maxChunkBytes: chunk, page: page == 0 ? nil : Int(page) - 1)
        let source = Array(reader.rest)
        return try ImagingWorkerErrors.reporting {
            let decoded = try ImageDecoder(configuration: configuration).decode(source)
            var reply = WorkerPayloadWriter(capacity: 256 + (pixels != 0 ? decoded.bitmap.pixels.count : 0))
            write(decoded.header, to: &reply)
            let warnings = decoded.warnings.prefix(64)
            reply.append(UInt64(warnings.count), width: 2)
            for warning in warnings {
                let text = Array(warning.utf8.prefix(2_000))
                reply.append(UInt64(text.count), width: 2)
                reply.append(contentsOf: text)
            }
            if pixels != 0 {
                reply.append(UInt64(decoded.bitmap.width))
                reply.append(UInt64(decoded.bitmap.height))
                reply.append(contentsOf: decoded.bitmap.pixels)
            }
            return reply.bytes
        }
    }

    /// Decodes `source` in a worker of `pool`. Without `pixels` the bitmap of the result is empty
    /// (0x0): the worker decoded it whole and kept it.
    /// - Throws: `CodecError` as the worker reported it, or ``ImagingError/decodeFailed`` when the
    ///   worker crashed, ran past its time or gave no whole reply.
    public static func run(
        on pool: WorkerPool, source: some Collection<UInt8>, configuration: ImageDecoder.Configuration, pixels: Bool = true
    ) async throws -> DecodedImage {
        let reply: [UInt8]
        do {
            reply = try await pool.run(name, payload: request(source: source, configuration: configuration, pixels: pixels))
        } catch {
            throw ImagingWorkerErrors.error(error, job: name)
        }
        var reader = WorkerPayloadReader(reply)
        guard let header = readHeader(&reader), let count = reader.word(width: 2) else { throw ImagingWorkerErrors.malformed(name) }
        var warnings: [String] = []
        for _ in 0..<Int(count) {
            guard let length = reader.word(width: 2), let text = reader.bytes(Int(length)) else {
                throw ImagingWorkerErrors.malformed(name)
            }
            warnings.append(String(decoding: text, as: UTF8.self))
        }
        guard pixels else {
            return DecodedImage(bitmap: Bitmap(width: 0, height: 0, bytesPerRow: 0, pixels: []), header: header, warnings: warnings)
        }
        guard let width = reader.integer(), let height = reader.integer(), width > 0, height > 0,
            width <= Int.max / 4 / height, reader.rest.count == width * height * 4
        else { throw ImagingWorkerErrors.malformed(name) }
        let bitmap = Bitmap(width: width, height: height, bytesPerRow: width * 4, pixels: Array(reader.rest))
        return DecodedImage(bitmap: bitmap, header: header, warnings: warnings)
    }

    static func write(_ header: ImageHeader, to writer: inout WorkerPayloadWriter) {
        func text(_ value: String) {
            writer.append(byte: UInt8(value.utf8.count))
            writer.append(contentsOf: value.utf8)
        }
        text(header.format.rawValue)
        for value in [header.width, header.height, header.channels, header.bitDepth] { writer.append(UInt64(max(0, value))) }
        writer.append(byte: header.isInterlaced ? 1 : 0)
        text(header.colorSpace.rawValue)
        writer.append(byte: header.hasAlpha ? 1 : 0)
        writer.append(UInt64(max(0, header.orientation ?? 0)))
        writer.append(UInt64(max(0, header.frameCount)))
        writer.append(byte: header.hasICCProfile ? 1 : 0)
        writer.append(byte: header.cicp == nil ? 0 : 1)
        for value in [header.cicp?.colorPrimaries, header.cicp?.transferCharacteristics, header.cicp?.matrixCoefficients] {
            writer.append(UInt64(max(0, value ?? 0)))
        }
    }

    static func readHeader(_ reader: inout WorkerPayloadReader) -> ImageHeader? {
        func text() -> String? {
            guard let count = reader.byte(), let bytes = reader.bytes(Int(count)) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let formatName = text(), let format = ImageFormat(rawValue: formatName),
            let width = reader.integer(), let height = reader.integer(), let channels = reader.integer(),
            let bitDepth = reader.integer(), let interlaced = reader.byte(), let spaceName = text(),
            let colorSpace = ImageHeader.ColorSpace(rawValue: spaceName), let alpha = reader.byte(),
            let orientation = reader.integer(), let frames = reader.integer(), let icc = reader.byte(),
            let hasCICP = reader.byte(), let primaries = reader.integer(), let transfer = reader.integer(),
            let matrix = reader.integer()
        else { return nil }
        return ImageHeader(
            format: format, width: width, height: height, channels: channels, bitDepth: bitDepth, isInterlaced: interlaced != 0,
            colorSpace: colorSpace, hasAlpha: alpha != 0, orientation: orientation == 0 ? nil : orientation,
            frameCount: max(1, frames), hasICCProfile: icc != 0,
            cicp: hasCICP == 0
                ? nil : ImageHeader.CICP(colorPrimaries: primaries, transferCharacteristics: transfer, matrixCoefficients: matrix))
    }
}
