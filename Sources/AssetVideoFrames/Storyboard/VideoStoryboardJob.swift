import AssetCodecs
import AssetWorkers

/// A storyboard decoded in a worker process (a `WorkerPool`), whose source bytes the parent reads
/// for it, as ``VideoFrameJob``'s frame: the worker opens no file and no connection, and a crash
/// or a hang in FFmpeg ends only the worker.
///
/// ```
/// request: u64 source size | u64 interval (Double bits) | u64 tile width (0: none)
///          | u64 tile height (0: none) | u64 columns | u8 key frames only | u64 maxTiles
///          | u64 maxPixels | u64 maxPackets | u64 threads
/// reply:   u64 sheet width | u64 sheet height | u64 tile width | u64 tile height | u64 columns
///          | u64 count | count x u64 time (Double bits) | u64 duration (Double bits) | u64 rotation
///          | u64 decoded | u64 packets | u64 bytes read | u16 container length | container
///          | u16 codec length | codec | RGBA rows
/// ```
public enum VideoStoryboardJob {
    /// The job's name in a worker's table.
    public static let name = "video-storyboard"

    /// The request of the tiles `spec` asks of a source of `sourceSize` bytes, under `limits`.
    public static func request(
        sourceSize: Int64, spec: VideoStoryboardSpec, limits: VideoStoryboardDecoder.Configuration = .init()
    ) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 96)
        writer.append(UInt64(bitPattern: sourceSize))
        writer.append(spec.interval.bitPattern)
        writer.append(UInt64(max(0, spec.tileWidth ?? 0)))
        writer.append(UInt64(max(0, spec.tileHeight ?? 0)))
        writer.append(UInt64(max(0, spec.columns)))
        writer.append(byte: spec.keyFramesOnly ? 1 : 0)
        for limit in [limits.maxTiles, limits.maxPixels, limits.maxPackets, limits.threads] {
            writer.append(UInt64(max(0, limit)))
        }
        return writer.bytes
    }

    /// The worker's side: decodes the tiles a ``request(sourceSize:spec:limits:)`` asks for,
    /// reading the source from the parent.
    /// - Throws: ``VideoFrameError``, reported to the parent as it is.
    public static func handle(_ payload: [UInt8]) throws -> [UInt8] {
        var reader = WorkerPayloadReader(payload)
        guard let sourceSize = reader.word(), let interval = reader.word(), let width = reader.integer(),
            let height = reader.integer(), let columns = reader.integer(), let keyFrames = reader.byte(),
            let maxTiles = reader.integer(), let maxPixels = reader.integer(), let maxPackets = reader.integer(),
            let threads = reader.integer()
        else { throw VideoFrameError(.renderFailed, "the worker got a malformed storyboard request") }
        let spec = VideoStoryboardSpec(
            interval: Double(bitPattern: interval), tileWidth: width == 0 ? nil : width, tileHeight: height == 0 ? nil : height,
            columns: columns, keyFramesOnly: keyFrames != 0)
        let decoder = VideoStoryboardDecoder(
            configuration: .init(maxTiles: maxTiles, maxPixels: maxPixels, maxPackets: maxPackets, threads: threads))
        let source = VideoFrameSource(size: Int64(bitPattern: sourceSize)) { offset, count in
            WorkerLoop.readFromParent(offset: offset, count: count)
        }
        let sheet = try decoder.decode(source, spec: spec)
        var reply = WorkerPayloadWriter(capacity: 128 + sheet.count * 8 + sheet.bitmap.pixels.count)
        for value in [sheet.bitmap.width, sheet.bitmap.height, sheet.tileWidth, sheet.tileHeight, sheet.columns, sheet.count] {
            reply.append(UInt64(value))
        }
        for time in sheet.times { reply.append(time.bitPattern) }
        reply.append(sheet.duration.bitPattern)
        reply.append(UInt64(sheet.rotation))
        reply.append(UInt64(sheet.decodedFrames))
        reply.append(UInt64(sheet.packets))
        reply.append(UInt64(bitPattern: sheet.bytesRead))
        for text in [sheet.container, sheet.codec] {
            let bytes = Array(text.utf8.prefix(1_000))
            reply.append(UInt64(bytes.count), width: 2)
            reply.append(contentsOf: bytes)
        }
        reply.append(contentsOf: sheet.bitmap.pixels)
        return reply.bytes
    }

    /// Decodes the tiles in a worker of `pool`, which reads the source's `sourceSize` bytes
    /// through `reads`.
    /// - Throws: ``VideoFrameError``: the error the worker reported, or `renderFailed` when the
    ///   worker crashed, ran past its time, could not be started or gave no whole sheet.
    public static func run(
        on pool: WorkerPool, sourceSize: Int64, spec: VideoStoryboardSpec, limits: VideoStoryboardDecoder.Configuration,
        reads: @escaping WorkerPool.Reads
    ) async throws(VideoFrameError) -> VideoTileSheet {
        let reply: [UInt8]
        do {
            reply = try await pool.run(name, payload: request(sourceSize: sourceSize, spec: spec, limits: limits), reads: reads)
        } catch {
            if let failure = error.failure { throw VideoFrameError(workerFailure: failure) }
            throw VideoFrameError(.renderFailed, "the storyboard worker \(error)")
        }
        return try sheet(fromReply: reply)
    }

    /// The sheet of a reply.
    /// - Throws: ``VideoFrameError`` `renderFailed` for a reply that is not a whole sheet.
    public static func sheet(fromReply reply: [UInt8]) throws(VideoFrameError) -> VideoTileSheet {
        var reader = WorkerPayloadReader(reply)
        let malformed = VideoFrameError(.renderFailed, "the worker's reply is not a whole storyboard")
        guard let width = reader.integer(), let height = reader.integer(), let tileWidth = reader.integer(),
            let tileHeight = reader.integer(), let columns = reader.integer(), let count = reader.integer(),
            width > 0, height > 0, columns > 0, count > 0, count <= 1 << 20
        else { throw malformed }
        var times: [Double] = []
        for _ in 0..<count {
            guard let bits = reader.word() else { throw malformed }
            times.append(Double(bitPattern: bits))
        }
        guard let duration = reader.word(), let rotation = reader.integer(), let decoded = reader.integer(),
            let packets = reader.integer(), let bytesRead = reader.word(), let container = text(&reader),
            let codec = text(&reader), width <= Int.max / 4 / height, reader.rest.count == width * height * 4
        else { throw malformed }
        return VideoTileSheet(
            bitmap: Bitmap(width: width, height: height, bytesPerRow: width * 4, pixels: Array(reader.rest)),
            tileWidth: tileWidth, tileHeight: tileHeight, columns: columns, times: times, duration: Double(bitPattern: duration),
            rotation: rotation, container: container, codec: codec, decodedFrames: decoded, packets: packets,
            bytesRead: Int64(bitPattern: bytesRead))
    }

    private static func text(_ reader: inout WorkerPayloadReader) -> String? {
        guard let count = reader.word(width: 2), let bytes = reader.bytes(Int(count)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
