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
/// request: u64 width | u64 height | u64 frameCount | u8 time kind (0 frame, 1 progress) | u64 time
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(80 + input.json.count)
        func put(_ value: UInt64) { for shift in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) } }
        put(UInt64(input.width))
        put(UInt64(input.height))
        put(UInt64(input.frameCount))
        switch time {
        case .frame(let frame):
            bytes.append(0)
            put(UInt64(bitPattern: Int64(frame)))
        case .progress(let progress):
            bytes.append(1)
            put(progress.bitPattern)
        }
        put(UInt64(max(0, size.width ?? 0)))
        put(UInt64(max(0, size.height ?? 0)))
        put(UInt64(limits.maxDimension))
        put(UInt64(limits.maxPixels))
        bytes += input.json
        return bytes
    }

    /// The worker's side: renders the frame a ``request(_:at:size:limits:)`` asks for.
    /// - Throws: `LottieRenderError`, reported to the parent as it is.
    public static func handle(_ payload: [UInt8]) throws -> [UInt8] {
        var reader = Reader(bytes: payload)
        guard let width = reader.integer(), let height = reader.integer(), let frameCount = reader.integer(),
            let kind = reader.byte(), let timeBits = reader.word(), let wantedWidth = reader.integer(),
            let wantedHeight = reader.integer(), let maxDimension = reader.integer(), let maxPixels = reader.integer()
        else { throw LottieRenderError.renderFailed("the worker got a malformed frame request") }
        let time: LottieFrameTime = kind == 0 ? .frame(Int(Int64(bitPattern: timeBits))) : .progress(Double(bitPattern: timeBits))
        var limits = LottieFrameRenderer.Configuration()
        limits.maxDimension = maxDimension
        limits.maxPixels = maxPixels
        let input = LottieRenderInput(
            validatedJSON: Data(payload[reader.offset...]), width: width, height: height, frameCount: frameCount)
        let size = LottieFrameSize(width: wantedWidth == 0 ? nil : wantedWidth, height: wantedHeight == 0 ? nil : wantedHeight)
        let bitmap = try LottieFrameRenderer(configuration: limits).render(input, at: time, size: size)
        var reply: [UInt8] = []
        reply.reserveCapacity(16 + bitmap.pixels.count)
        for value in [UInt64(bitmap.width), UInt64(bitmap.height)] {
            for shift in 0..<8 { reply.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
        }
        reply += bitmap.pixels
        return reply
    }

    /// The bitmap of a reply.
    /// - Throws: `LottieRenderError.renderFailed` for a reply that is not a whole bitmap.
    public static func bitmap(fromReply reply: [UInt8]) throws(LottieRenderError) -> Bitmap {
        var reader = Reader(bytes: reply)
        guard let width = reader.integer(), let height = reader.integer(), width > 0, height > 0,
            width <= Int.max / 4 / height, reply.count - reader.offset == width * height * 4
        else { throw .renderFailed("the worker's reply is not a whole bitmap") }
        return Bitmap(width: width, height: height, bytesPerRow: width * 4, pixels: Array(reply[reader.offset...]))
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func word() -> UInt64? {
            guard bytes.count - offset >= 8 else { return nil }
            var value: UInt64 = 0
            for shift in 0..<8 { value |= UInt64(bytes[offset + shift]) << (8 * UInt64(shift)) }
            offset += 8
            return value
        }

        mutating func integer() -> Int? {
            guard let word = word(), word <= UInt64(Int32.max) else { return nil }
            return Int(word)
        }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }
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
