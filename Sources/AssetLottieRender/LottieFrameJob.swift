import AssetCodecs
import AssetWorkers

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One frame rendered in a worker process (a `WorkerPool`): the request is a
/// ``LottieRenderInput`` (checked by ``LottieFrameRenderer/prepare(_:)`` in the parent), the time,
/// the size and the parent's frame limits; the reply is the bitmap.
///
/// ```
/// request: u64 width | u64 height | u64 frameCount | u64 rlottieFrameCount | u8 time kind (0 frame, 1 progress) | u64 time
///          | u64 requested width (0: none) | u64 requested height (0: none)
///          | u64 maxDimension | u64 maxPixels | JSON
/// reply:   u64 width | u64 height | RGBA rows
/// ```
public enum LottieFrameJob {
    /// The job's name in a worker's table.
    public static let name = "lottie-frame"

    /// The request of the frame at `time` of `input` at `size`, under `limits`' frame limits.
    public static func request(
        _ input: LottieRenderInput, at time: LottieFrameTime, size: LottieFrameSize,
        limits: LottieFrameRenderer.Configuration = .init()
    ) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 88 + input.json.count)
        writer.append(UInt64(input.width))
        writer.append(UInt64(input.height))
        writer.append(UInt64(input.frameCount))
        writer.append(UInt64(input.rlottieFrameCount))
        switch time {
        case .frame(let frame):
            writer.append(byte: 0)
            writer.append(UInt64(bitPattern: Int64(frame)))
        case .progress(let progress):
            writer.append(byte: 1)
            writer.append(progress.bitPattern)
        }
        writer.append(UInt64(max(0, size.width ?? 0)))
        writer.append(UInt64(max(0, size.height ?? 0)))
        writer.append(UInt64(limits.maxDimension))
        writer.append(UInt64(limits.maxPixels))
        writer.append(contentsOf: input.json)
        return writer.bytes
    }

    /// The worker's side: renders the frame a ``request(_:at:size:limits:)`` asks for.
    /// - Throws: `LottieRenderError`, reported to the parent as it is.
    public static func handle(_ payload: [UInt8]) throws -> [UInt8] {
        var reader = WorkerPayloadReader(payload)
        guard let width = reader.integer(), let height = reader.integer(), let frameCount = reader.integer(),
            let rlottieFrameCount = reader.integer(), let kind = reader.byte(), let timeBits = reader.word(), let wantedWidth = reader.integer(),
            let wantedHeight = reader.integer(), let maxDimension = reader.integer(), let maxPixels = reader.integer()
        else { throw LottieRenderError.renderFailed("the worker got a malformed frame request") }
        let time: LottieFrameTime = kind == 0 ? .frame(Int(Int64(bitPattern: timeBits))) : .progress(Double(bitPattern: timeBits))
        var limits = LottieFrameRenderer.Configuration()
        limits.maxDimension = maxDimension
        limits.maxPixels = maxPixels
        let input = LottieRenderInput(
            validatedJSON: Data(reader.rest), width: width, height: height, frameCount: frameCount,
            rlottieFrameCount: rlottieFrameCount)
        let size = LottieFrameSize(width: wantedWidth == 0 ? nil : wantedWidth, height: wantedHeight == 0 ? nil : wantedHeight)
        let bitmap = try LottieFrameRenderer(configuration: limits).render(input, at: time, size: size)
        var reply = WorkerPayloadWriter(capacity: 16 + bitmap.pixels.count)
        reply.append(UInt64(bitmap.width))
        reply.append(UInt64(bitmap.height))
        reply.append(contentsOf: bitmap.pixels)
        return reply.bytes
    }

    /// The bitmap of a reply.
    /// - Throws: `LottieRenderError.renderFailed` for a reply that is not a whole bitmap.
    public static func bitmap(fromReply reply: [UInt8]) throws(LottieRenderError) -> Bitmap {
        var reader = WorkerPayloadReader(reply)
        guard let width = reader.integer(), let height = reader.integer(), width > 0, height > 0,
            width <= Int.max / 4 / height, reader.rest.count == width * height * 4
        else { throw .renderFailed("the worker's reply is not a whole bitmap") }
        return Bitmap(width: width, height: height, bytesPerRow: width * 4, pixels: Array(reader.rest))
    }
}

extension LottieRenderError: WorkerReportableError {
    /// The error's code and message, sent by a worker to its pool.
    public var workerFailure: WorkerFailure { WorkerFailure(code: shortDescription, message: message) }

    /// The error a worker reported as `failure` (``renderFailed`` when the code is not one of
    /// ours).
    public init(workerFailure failure: WorkerFailure) {
        switch failure.code {
        case "invalidSize": self = .invalidSize(failure.message)
        case "sizeTooLarge": self = .sizeTooLarge(failure.message)
        case "frameOutOfRange": self = .frameOutOfRange(failure.message)
        case "unsupported": self = .unsupported(failure.message)
        default: self = .renderFailed(failure.message)
        }
    }
}
