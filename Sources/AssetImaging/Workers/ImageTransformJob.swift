import AssetCodecs
import AssetWorkers

/// A variant made in a worker process (a `WorkerPool`): the whole of
/// ``ImageProcessor/process(_:transform:accepting:)`` (the header, the decode, the transform and
/// the encoder) runs there, on bytes the request carries, so that a crash, a hang or a runaway
/// allocation in a decoder of hostile input ends the worker, never the caller.
///
/// - For the formats whose libraries are large parsers of hostile input
///   (``isolatedFormats``: HEIF with libheif, AVIF with libavif and libheif, TIFF with libtiff,
///   SVG with librsvg, JPEG XL with libjxl); the service and the prefetcher send them here.
/// - Errors come back typed: the source's `CodecError`, the transform's ``ImagingError``; a
///   worker that crashed, ran past its time or memory, or could not start is
///   ``ImagingError/decodeFailed``.
/// - The pixels are those of the same transform in process: the worker runs the same code.
///
/// ```
/// request: u64 maxSourcePixels | u64 maxInputBytes | u64 maxOutputPixels | u64 maxOutputDimension
///          | u64 maxOutputBytes | u64 avifSpeed | u64 avifThreads | u64 webpMethod
///          | u64 shrinkOnLoadMargin (Double bits) | u8 overlap (0 off, 1 when cores are free, 2 always)
///          | u16 length | canonical transform | u8 accepted count (255: none given)
///          | (u8 length | format name) per accepted format | source bytes
/// reply:   u8 length | format name | u64 width | u64 height | encoded bytes
/// ```
public enum ImageTransformJob {
    /// The job's name in a worker's table.
    public static let name = "image-transform"

    /// The source formats whose decoders run in worker processes when a caller has a pool: those
    /// decoded by large C parsers (libheif with its HEVC and AV1 decoders, libavif, libtiff,
    /// librsvg, libjxl). PNG, JPEG, WebP and GIF decode in process (their libraries are small and
    /// fuzzed in process by `scripts/fuzz codecs`).
    public static let isolatedFormats: Set<ImageFormat> = [.heif, .avif, .tiff, .svg, .jpegXL]

    /// The request of `transform` of `source` under `configuration`, for `accepted`.
    public static func request(
        source: some Collection<UInt8>, transform: ImageTransform, accepted: [OutputFormat]?,
        configuration: ImageProcessor.Configuration
    ) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 128 + source.count)
        ProcessorConfigurationCoding.write(configuration, to: &writer)
        let text = Array(transform.canonicalText.utf8)
        writer.append(UInt64(text.count), width: 2)
        writer.append(contentsOf: text)
        ImagingPayloadCoding.write(accepted: accepted, to: &writer)
        writer.append(contentsOf: source)
        return writer.bytes
    }

    /// The worker's side: makes the transform a ``request(source:transform:accepted:configuration:)``
    /// asks for.
    /// - Throws: the source's `CodecError` or the transform's ``ImagingError``, reported to the parent.
    public static func handle(_ payload: [UInt8]) throws -> [UInt8] {
        var reader = WorkerPayloadReader(payload)
        guard let configuration = ProcessorConfigurationCoding.read(&reader),
            let length = reader.word(width: 2), let text = reader.bytes(Int(length))
        else { throw ImagingError.invalidTransform("the worker got a malformed transform request") }
        let accepted = try ImagingPayloadCoding.readAccepted(&reader)
        let source = Array(reader.rest)
        return try ImagingWorkerErrors.reporting {
            let transform = try ImageTransform(
                parsing: String(decoding: text, as: UTF8.self), maxOutputDimension: configuration.maxOutputDimension)
            return ImagingPayloadCoding.reply(
                try ImageProcessor(configuration: configuration).process(source, transform: transform, accepting: accepted))
        }
    }

    /// Makes `transform` of `source` in a worker of `pool`.
    /// - Throws: `CodecError` or ``ImagingError`` as the worker reported them, or
    ///   ``ImagingError/decodeFailed`` when the worker crashed, ran past its time or gave no whole reply.
    public static func run(
        on pool: WorkerPool, source: some Collection<UInt8>, transform: ImageTransform, accepted: [OutputFormat]?,
        configuration: ImageProcessor.Configuration
    ) async throws -> EncodedImage {
        let reply: [UInt8]
        do {
            reply = try await pool.run(
                name, payload: request(source: source, transform: transform, accepted: accepted, configuration: configuration))
        } catch {
            throw ImagingWorkerErrors.error(error, job: name)
        }
        guard let encoded = ImagingPayloadCoding.encoded(fromReply: reply) else { throw ImagingWorkerErrors.malformed(Self.name) }
        return encoded
    }
}
