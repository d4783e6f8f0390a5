/// The one error type of the storage layer: a code, a message and, where one exists, the
/// system error number or an underlying error.
///
/// Switch on ``code`` (compare with the static members, e.g. `error.code == .corrupt`); the
/// message is for people and logs, ``shortDescription`` is fit for a metric label.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable value.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case io, corrupt, notFound, tooLarge, invalidArgument, encoding, closed
        }
        fileprivate let base: Base

        /// A system call failed (see ``StorageError/errno``): permissions, a full disk, ...
        public static let io = Code(base: .io)
        /// An entry's data or metadata does not agree with itself; it was not served.
        public static let corrupt = Code(base: .corrupt)
        /// No entry for the key.
        public static let notFound = Code(base: .notFound)
        /// The value is larger than the cache may hold.
        public static let tooLarge = Code(base: .tooLarge)
        /// A caller's argument cannot be used (an empty key, a negative limit, ...).
        public static let invalidArgument = Code(base: .invalidArgument)
        /// A typed value could not be encoded or decoded.
        public static let encoding = Code(base: .encoding)
        /// The cache was closed.
        public static let closed = Code(base: .closed)

        /// The code's name, e.g. `io` or `corrupt`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for a person: what failed, naming the key or the file.
    public let message: String
    /// The `errno` of the failing system call, for ``Code/io``.
    public let errno: Int32?
    /// The error that caused this one (an encoding error, an error from a nested call), if any.
    public let underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A sentence for a person, naming the key or the file.
    ///   - errno: The `errno` of the failing system call, for ``Code/io``.
    ///   - underlying: The error that caused this one, if any.
    public init(_ code: Code, _ message: String, errno: Int32? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.underlying = underlying
    }

    /// The code alone, for metric labels.
    public var shortDescription: String { code.description }

    /// The code and the message, then the `errno` and the underlying error where there are ones,
    /// e.g. `io: open /cache/ab12.data: Permission denied (errno 13)`.
    public var description: String {
        var text = "\(code): \(message)"
        if let errno { text += " (errno \(errno))" }
        if let underlying { text += " (\(underlying))" }
        return text
    }
}
