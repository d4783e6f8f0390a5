import AssetCodecs
import AssetVideoFrames
import AssetWorkers

/// A video's animated preview made in a worker process (a `WorkerPool`): FFmpeg's demuxer and
/// decoder, the resize and the encoder (``VideoMotion/make(_:transform:accepting:configuration:limits:)``)
/// all run there, the source read from the parent as `VideoFrameJob`'s frame is, so that a crash
/// or a hang in FFmpeg ends only the worker.
///
/// ```
/// request: processor configuration (as ImageTransformJob's) | u64 source size | u64 maxPixels
///          | u64 maxFrames | u64 maxSeconds (Double bits) | u64 maxPackets | u64 threads
///          | u16 length | canonical transform
///          | u8 accepted count (255: none given) | (u8 length | format name) per accepted format
/// reply:   u8 length | format name | u64 width | u64 height | encoded bytes
/// ```
public enum VideoPreviewJob {
    /// The job's name in a worker's table.
    public static let name = "video-preview"

    /// The request of `transform`'s preview of a source of `sourceSize` bytes.
    public static func request(
        sourceSize: Int64, transform: ImageTransform, accepted: [OutputFormat]?, configuration: ImageProcessor.Configuration,
        limits: VideoPreviewDecoder.Configuration
    ) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 256)
        ProcessorConfigurationCoding.write(configuration, to: &writer)
        writer.append(UInt64(bitPattern: sourceSize))
        writer.append(UInt64(max(0, limits.maxPixels)))
        writer.append(UInt64(max(0, limits.maxFrames)))
        writer.append(limits.maxSeconds.bitPattern)
        writer.append(UInt64(max(0, limits.maxPackets)))
        writer.append(UInt64(max(0, limits.threads)))
        let text = Array(transform.canonicalText.utf8)
        writer.append(UInt64(text.count), width: 2)
        writer.append(contentsOf: text)
        ImagingPayloadCoding.write(accepted: accepted, to: &writer)
        return writer.bytes
    }

    /// The worker's side: makes the preview a request asks for, reading the source from the parent.
    /// - Throws: ``ImagingError``, `VideoFrameError`, reported to the parent as they are.
    public static func handle(_ payload: [UInt8]) throws -> [UInt8] {
        var reader = WorkerPayloadReader(payload)
        guard let configuration = ProcessorConfigurationCoding.read(&reader), let size = reader.word(),
            let maxPixels = reader.integer(), let maxFrames = reader.integer(), let maxSeconds = reader.word(),
            let maxPackets = reader.integer(),
            let threads = reader.integer(), let length = reader.word(width: 2), let text = reader.bytes(Int(length))
        else { throw ImagingError.invalidTransform("the worker got a malformed preview request") }
        let accepted = try ImagingPayloadCoding.readAccepted(&reader)
        let source = VideoFrameSource(size: Int64(bitPattern: size)) { offset, count in
            WorkerLoop.readFromParent(offset: offset, count: count)
        }
        let limits = VideoPreviewDecoder.Configuration(
            maxPixels: maxPixels, maxFrames: maxFrames, maxSeconds: Double(bitPattern: maxSeconds), maxPackets: maxPackets,
            threads: threads)
        return try ImagingWorkerErrors.reporting {
            let transform = try ImageTransform(
                parsing: String(decoding: text, as: UTF8.self), maxOutputDimension: configuration.maxOutputDimension)
            return ImagingPayloadCoding.reply(
                try VideoMotion.make(source, transform: transform, accepting: accepted, configuration: configuration, limits: limits))
        }
    }

    /// Makes the preview in a worker of `pool`, which reads the source's `sourceSize` bytes
    /// through `reads`.
    /// - Throws: ``ImagingError`` or `VideoFrameError` as the worker reported them; `VideoFrameError`
    ///   `renderFailed` when the worker crashed, ran past its time, could not be started or gave no
    ///   whole reply (as a frame's worker).
    public static func run(
        on pool: WorkerPool, sourceSize: Int64, transform: ImageTransform, accepted: [OutputFormat]?,
        configuration: ImageProcessor.Configuration, limits: VideoPreviewDecoder.Configuration, reads: @escaping WorkerPool.Reads
    ) async throws -> EncodedImage {
        let reply: [UInt8]
        do {
            let payload = request(
                sourceSize: sourceSize, transform: transform, accepted: accepted, configuration: configuration, limits: limits)
            reply = try await pool.run(name, payload: payload, reads: reads)
        } catch {
            // a video's own error comes back under its bare code, an image's under its prefix
            guard let failure = error.failure else { throw VideoFrameError(.renderFailed, "the \(name) worker \(error)") }
            if !failure.code.contains("."), VideoFrameError.Code(rawValue: failure.code) != nil {
                throw VideoFrameError(workerFailure: failure)
            }
            throw ImagingWorkerErrors.error(error, job: name)
        }
        guard let encoded = ImagingPayloadCoding.encoded(fromReply: reply) else {
            throw VideoFrameError(.renderFailed, "the \(name) worker's reply is malformed")
        }
        return encoded
    }
}
