import AssetCodecs
import AssetWorkers

/// One video frame decoded in a worker process (a `WorkerPool`), whose source bytes the parent
/// reads for it: the worker asks with `WorkerLoop.readFromParent(offset:count:)`, the parent
/// answers through the `reads` of `WorkerPool.run(_:payload:reads:)`. The worker opens no file and
/// no connection; a crash or a hang in FFmpeg ends only the worker.
///
/// ```
/// request: u64 source size | u8 time kind (0 first, 1 seconds, 2 progress) | u64 time (Double bits)
///          | u64 width (0: none) | u64 height (0: none) | u64 maxPixels | u64 maxPackets | u64 threads
/// reply:   u64 width | u64 height | u64 time (Double bits) | u64 duration (Double bits, 0 unknown)
///          | u64 rotation | u64 bytes read | u64 packets | u16 container length | container
///          | u16 codec length | codec | RGBA rows
/// ```
public enum VideoFrameJob {
    /// The job's name in a worker's table.
    public static let name = "video-frame"

    /// The request of the frame at `time`, at `size`, of a source of `sourceSize` bytes, under
    /// `limits`.
    public static func request(
        sourceSize: Int64, at time: VideoFrameTime, size: VideoFrameSize,
        limits: VideoFrameDecoder.Configuration = .init()
    ) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 64)
        writer.append(UInt64(bitPattern: sourceSize))
        switch time {
        case .first:
            writer.append(byte: 0)
            writer.append(UInt64(0))
        case .seconds(let seconds):
            writer.append(byte: 1)
            writer.append(seconds.bitPattern)
        case .progress(let progress):
            writer.append(byte: 2)
            writer.append(progress.bitPattern)
        }
        writer.append(UInt64(max(0, size.width ?? 0)))
        writer.append(UInt64(max(0, size.height ?? 0)))
        writer.append(UInt64(max(0, limits.maxPixels)))
        writer.append(UInt64(max(0, limits.maxPackets)))
        writer.append(UInt64(max(0, limits.threads)))
        return writer.bytes
    }

    /// The worker's side: decodes the frame a ``request(sourceSize:at:size:limits:)`` asks for,
    /// reading the source from the parent.
    /// - Throws: ``VideoFrameError``, reported to the parent as it is.
    public static func handle(_ payload: [UInt8]) throws -> [UInt8] {
        var reader = WorkerPayloadReader(payload)
        guard let sourceSize = reader.word(), let kind = reader.byte(), let timeBits = reader.word(),
            let width = reader.integer(), let height = reader.integer(), let maxPixels = reader.integer(),
            let maxPackets = reader.integer(), let threads = reader.integer(), kind <= 2
        else { throw VideoFrameError(.renderFailed, "the worker got a malformed frame request") }
        let time: VideoFrameTime = switch kind {
        case 0: .first
        case 1: .seconds(Double(bitPattern: timeBits))
        default: .progress(Double(bitPattern: timeBits))
        }
        let decoder = VideoFrameDecoder(
            configuration: .init(maxPixels: maxPixels, maxPackets: maxPackets, threads: threads))
        let source = VideoFrameSource(size: Int64(bitPattern: sourceSize)) { offset, count in
            WorkerLoop.readFromParent(offset: offset, count: count)
        }
        let frame = try decoder.decode(
            source, at: time, size: VideoFrameSize(width: width == 0 ? nil : width, height: height == 0 ? nil : height))
        var reply = WorkerPayloadWriter(capacity: 96 + frame.bitmap.pixels.count)
        reply.append(UInt64(frame.bitmap.width))
        reply.append(UInt64(frame.bitmap.height))
        reply.append(frame.time.bitPattern)
        reply.append((frame.duration ?? 0).bitPattern)
        reply.append(UInt64(frame.rotation))
        reply.append(UInt64(bitPattern: frame.bytesRead))
        reply.append(UInt64(frame.packets))
        for text in [frame.container, frame.codec] {
            let bytes = Array(text.utf8.prefix(1_000))
            reply.append(UInt64(bytes.count), width: 2)
            reply.append(contentsOf: bytes)
        }
        reply.append(contentsOf: frame.bitmap.pixels)
        return reply.bytes
    }

    /// Decodes the frame at `time`, at `size`, in a worker of `pool`, which reads the source's
    /// `sourceSize` bytes through `reads`.
    /// - Throws: ``VideoFrameError``: the error the worker reported, or `renderFailed` when the
    ///   worker crashed, ran past its time, could not be started or gave no whole frame.
    public static func run(
        on pool: WorkerPool, sourceSize: Int64, at time: VideoFrameTime, size: VideoFrameSize,
        limits: VideoFrameDecoder.Configuration, reads: @escaping WorkerPool.Reads
    ) async throws(VideoFrameError) -> VideoFrame {
        let reply: [UInt8]
        do {
            reply = try await pool.run(name, payload: request(sourceSize: sourceSize, at: time, size: size, limits: limits), reads: reads)
        } catch {
            if let failure = error.failure { throw VideoFrameError(workerFailure: failure) }
            throw VideoFrameError(.renderFailed, "the frame worker \(error)")
        }
        return try frame(fromReply: reply)
    }

    /// The frame of a reply.
    /// - Throws: ``VideoFrameError`` `renderFailed` for a reply that is not a whole frame.
    public static func frame(fromReply reply: [UInt8]) throws(VideoFrameError) -> VideoFrame {
        var reader = WorkerPayloadReader(reply)
        guard let width = reader.integer(), let height = reader.integer(), let time = reader.word(),
            let duration = reader.word(), let rotation = reader.integer(), let bytesRead = reader.word(),
            let packets = reader.integer(), let container = text(&reader), let codec = text(&reader),
            width > 0, height > 0, width <= Int.max / 4 / height, reader.rest.count == width * height * 4
        else { throw VideoFrameError(.renderFailed, "the worker's reply is not a whole frame") }
        let length = Double(bitPattern: duration)
        return VideoFrame(
            bitmap: Bitmap(width: width, height: height, bytesPerRow: width * 4, pixels: Array(reader.rest)),
            time: Double(bitPattern: time), duration: length > 0 ? length : nil, rotation: rotation,
            container: container, codec: codec, bytesRead: Int64(bitPattern: bytesRead), packets: packets)
    }

    private static func text(_ reader: inout WorkerPayloadReader) -> String? {
        guard let count = reader.word(width: 2), let bytes = reader.bytes(Int(count)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
