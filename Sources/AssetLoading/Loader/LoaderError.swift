/// The one error type of the loading layer: a code, a message and, where one exists, the underlying error.
///
/// Compare with the static members (`error == .timeout`, `error == .http(404)`): equality looks at the
/// code only. ``shortDescription`` is fit for a metric label.
public struct LoaderError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case http(Int)
        case timeout
        case tooLarge
        case truncated
        case connection
        case cancelled
        case invalidURL
        case unsupportedScheme
        case notCached
        case notFound
        case tooManyRedirects
        case redirectLoop
        case forbiddenDestination
        case invalidResponse
        case storage
        case shutdown
    }

    private let code: Code
    /// A human-readable explanation.
    public let message: String
    /// The error that caused this one, if any.
    public let underlying: (any Error)?
    /// The delay a `429` or `503` asked for with `Retry-After`, used by the retry loop.
    let retryAfter: Duration?
    /// The object store's own error code, for an ``http(_:)`` error from S3 (its `<Code>`:
    /// `NoSuchKey`, `AccessDenied`, `SignatureDoesNotMatch`, `RequestTimeTooSkewed`,
    /// `ExpiredToken`, `SlowDown`...; for a `HEAD`, which has no body, the usual code of the
    /// status; `ExpiredToken` too when the store does not say why it refused a request signed after
    /// the credentials' known ``S3Credentials/expiration``); nil for other errors.
    public let s3Code: String?

    private init(_ code: Code, _ message: String, underlying: (any Error)? = nil, retryAfter: Duration? = nil, s3Code: String? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.retryAfter = retryAfter
        self.s3Code = s3Code
    }

    /// The origin answered with an error status (or a status the loader cannot use).
    public static func http(_ status: Int) -> LoaderError { LoaderError(.http(status), "the origin answered \(status)") }
    /// A connect, idle-read or whole-request timeout passed.
    public static let timeout = LoaderError(.timeout, "the request timed out")
    /// The body is larger than the kind's maximum.
    public static let tooLarge = LoaderError(.tooLarge, "the body is larger than allowed")
    /// The body ended before its announced length (the connection closed early).
    public static let truncated = LoaderError(.truncated, "the body ended early")
    /// The connection could not be made or broke.
    public static let connection = LoaderError(.connection, "the connection failed")
    /// The caller's task was cancelled.
    public static let cancelled = LoaderError(.cancelled, "the load was cancelled")
    /// The URL cannot be parsed or has no host.
    public static let invalidURL = LoaderError(.invalidURL, "the URL is not valid")
    /// The URL's scheme is not http, https or file.
    public static let unsupportedScheme = LoaderError(.unsupportedScheme, "the URL's scheme is not supported")
    /// The strategy or `only-if-cached` forbids the network and the cache cannot answer (a 504 in HTTP terms).
    public static let notCached = LoaderError(.notCached, "no usable cached response")
    /// A `file://` URL names no readable regular file.
    public static let notFound = LoaderError(.notFound, "no such file")
    /// More redirects than the configured limit.
    public static let tooManyRedirects = LoaderError(.tooManyRedirects, "too many redirects")
    /// A redirect leads back to a URL already visited.
    public static let redirectLoop = LoaderError(.redirectLoop, "a redirect loop")
    /// The destination is refused by the loader's ``DestinationPolicy`` (a private address, a host not
    /// allowed); checked before connecting and again on every redirect.
    public static let forbiddenDestination = LoaderError(.forbiddenDestination, "the destination is not allowed")
    /// The origin's answer is not usable HTTP: framing or a head the HTTP/1.1 parser refuses (a chunk
    /// size that is not hexadecimal, a head over the parser's limit), or a `206` to a request without
    /// `Range`. Not retried: the origin would answer the same.
    public static let invalidResponse = LoaderError(.invalidResponse, "the origin's answer is not valid HTTP")
    /// The disk cache failed.
    public static let storage = LoaderError(.storage, "the disk cache failed")
    /// The loader was shut down.
    public static let shutdown = LoaderError(.shutdown, "the loader is shut down")

    /// The same code with another message and cause.
    package func with(message: String? = nil, underlying: (any Error)? = nil, retryAfter: Duration? = nil, s3Code: String? = nil) -> LoaderError {
        LoaderError(
            self.code, message ?? self.message, underlying: underlying ?? self.underlying, retryAfter: retryAfter ?? self.retryAfter,
            s3Code: s3Code ?? self.s3Code)
    }

    /// The HTTP status for ``http(_:)`` errors.
    public var status: Int? {
        if case .http(let status) = self.code { return status }
        return nil
    }

    /// Whether a retry may succeed: connection failures, early ends, timeouts of one attempt, and the
    /// statuses 408, 429 and 5xx. Never other 4xx.
    var isRetryable: Bool {
        switch self.code {
        case .connection, .truncated, .timeout: return true
        case .http(let status): return status == 408 || status == 429 || (500...599).contains(status)
        default: return false
        }
    }

    /// Whether the failure lets a stale copy answer (`stale-if-error`, `networkFirst`): the origin could
    /// not be reached, broke the protocol or failed with 5xx.
    var allowsStaleFallback: Bool {
        switch self.code {
        case .connection, .truncated, .timeout, .invalidResponse: return true
        case .http(let status): return (500...599).contains(status)
        default: return false
        }
    }

    /// The code alone, for metric labels: `http_404`, `timeout`, ...
    public var shortDescription: String {
        switch self.code {
        case .http(let status): return "http_\(status)"
        case .timeout: return "timeout"
        case .tooLarge: return "too_large"
        case .truncated: return "truncated"
        case .connection: return "connection"
        case .cancelled: return "cancelled"
        case .invalidURL: return "invalid_url"
        case .unsupportedScheme: return "unsupported_scheme"
        case .notCached: return "not_cached"
        case .notFound: return "not_found"
        case .tooManyRedirects: return "too_many_redirects"
        case .redirectLoop: return "redirect_loop"
        case .forbiddenDestination: return "forbidden_destination"
        case .invalidResponse: return "invalid_response"
        case .storage: return "storage"
        case .shutdown: return "shutdown"
        }
    }

    /// The ``shortDescription`` and the message: `LoaderError.not_found: no such file`. The message
    /// already says what the underlying error was, in words, so the underlying error is not printed again.
    public var description: String {
        "LoaderError.\(self.shortDescription): \(self.message)"
    }

    /// Whether two errors have the same code (messages and causes are not compared), so that
    /// `error == .notFound` tests the code.
    public static func == (lhs: LoaderError, rhs: LoaderError) -> Bool {
        lhs.code == rhs.code
    }
}
