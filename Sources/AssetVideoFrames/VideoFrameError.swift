import AssetWorkers

/// Why a video frame could not be had: a typed code and a message for people.
public struct VideoFrameError: Error, Sendable, Equatable, CustomStringConvertible, WorkerReportableError {
    /// What went wrong.
    public enum Code: String, Sendable, CaseIterable {
        /// Not an MP4/QuickTime or Matroska/WebM container, or one whose header is broken.
        case notAVideo
        /// The container holds no video stream.
        case noVideoStream
        /// The video's codec has no decoder here (or is not one this decodes).
        case unsupportedCodec
        /// The time is negative or past the end, or the progress is not in 0 up to 1.
        case frameOutOfRange
        /// The decoder failed, or the stream ended before the frame.
        case decodeFailed
        /// The frame or the size asked for is past the pixel limit, or a side is not positive.
        case tooLarge
        /// A read of the source failed.
        case readFailed
        /// More packets than the limit went by without reaching the frame.
        case tooManyPackets
        /// The worker that decoded crashed, ran past its time or could not be started.
        case renderFailed
        /// FFmpeg's libraries (opened on the first decode) are not installed, or not the version
        /// this was built against.
        case decoderUnavailable
    }

    /// What went wrong.
    public var code: Code
    /// Details for people.
    public var message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// The code and message a worker sends for this error.
    public var workerFailure: WorkerFailure { WorkerFailure(code: code.rawValue, message: message) }

    /// The error a worker reported (`renderFailed` for a code this does not know).
    public init(workerFailure: WorkerFailure) {
        self.init(Code(rawValue: workerFailure.code) ?? .renderFailed, workerFailure.message)
    }
}
