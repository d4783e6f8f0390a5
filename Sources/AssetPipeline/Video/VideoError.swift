import AssetLoading

/// The one error type of ``VideoUtil``: a code, a message and, where one exists, the status,
/// the resource's length and an underlying error.
///
/// Compare codes with the static members (`error.code == .rangeNotSatisfiable`);
/// ``shortDescription`` is fit for a metric label.
public struct VideoError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable value.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case invalidRange, invalidURL, rangeNotSatisfiable, resourceChanged, truncated, invalidResponse
            case http, network, timeout, storage, cancelled
        }
        fileprivate let base: Base

        /// The range itself is unusable (a negative start, an empty suffix).
        public static let invalidRange = Code(base: .invalidRange)
        /// The URL cannot be requested.
        public static let invalidURL = Code(base: .invalidURL)
        /// No byte of the range exists (see ``VideoError/totalLength``).
        public static let rangeNotSatisfiable = Code(base: .rangeNotSatisfiable)
        /// The resource changed while a streamed read had already handed out bytes of the old
        /// version; its chunks were dropped. Read again for the new version.
        public static let resourceChanged = Code(base: .resourceChanged)
        /// A body ended before the length it announced; only whole chunks were kept.
        public static let truncated = Code(base: .truncated)
        /// The origin answered something a range cache cannot use (a `Content-Range` other than
        /// the one asked for, a body longer than announced).
        public static let invalidResponse = Code(base: .invalidResponse)
        /// The origin answered an error status (see ``VideoError/status``).
        public static let http = Code(base: .http)
        /// The connection failed, or a redirect could not be followed.
        public static let network = Code(base: .network)
        /// No bytes came for the loader's read timeout, or an exchange passed its total timeout.
        public static let timeout = Code(base: .timeout)
        /// The chunk store failed.
        public static let storage = Code(base: .storage)
        /// The reading task was cancelled.
        public static let cancelled = Code(base: .cancelled)

        /// The code's name, e.g. `rangeNotSatisfiable`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for a person: what failed, naming the URL or the range.
    public let message: String
    /// The HTTP status, for ``Code/http``.
    public let status: Int?
    /// The resource's length when it is known (always for ``Code/rangeNotSatisfiable``).
    public let totalLength: Int64?
    /// The error that caused this one (a `LoaderError`, a `StorageError`), if any.
    public let underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A sentence for a person.
    ///   - status: The HTTP status, for ``Code/http``.
    ///   - totalLength: The resource's length, when known.
    ///   - underlying: The error that caused this one, if any.
    public init(_ code: Code, _ message: String, status: Int? = nil, totalLength: Int64? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.totalLength = totalLength
        self.underlying = underlying
    }

    /// The code alone (with the status for HTTP errors), for metric labels.
    public var shortDescription: String {
        if code == .http, let status { return "http\(status)" }
        return code.description
    }

    /// The ``shortDescription`` and the message: `CODE: MESSAGE`. The message already says what the
    /// underlying error was, so the underlying error is not printed again.
    public var description: String {
        "\(shortDescription): \(message)"
    }

    /// A failed exchange with the origin for `url`, with the loader's message (which names the
    /// cause once), not its description: a timeout or an answer that is not valid HTTP keeps its
    /// meaning, anything else is a network failure.
    static func network(_ url: String, _ error: any Error) -> VideoError {
        guard let error = error as? LoaderError else { return VideoError(.network, "\(url): \(error)", underlying: error) }
        let code: Code = error == .timeout ? .timeout : error == .invalidResponse ? .invalidResponse : .network
        return VideoError(code, "\(url): \(error.message)", underlying: error)
    }
}
