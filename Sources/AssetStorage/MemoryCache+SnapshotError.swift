extension MemoryCache {
    /// Why a snapshot could not be saved or loaded.
    ///
    /// Compare ``code`` with the static codes: `error.code == .corrupt`.
    public struct SnapshotError: Error, CustomStringConvertible {
        /// What went wrong, fit for a metric label.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Hashable, Sendable {
                case unreadable, unwritable, corrupt, unsupportedVersion
            }

            private let base: Base

            private init(_ base: Base) { self.base = base }

            /// The snapshot file could not be read (missing, no permission, I/O error).
            public static var unreadable: Code { Code(.unreadable) }
            /// The snapshot could not be encoded or written in place.
            public static var unwritable: Code { Code(.unwritable) }
            /// The file is not a valid snapshot (truncated, not JSON, wrong shape, bad key or value).
            public static var corrupt: Code { Code(.corrupt) }
            /// The file is a snapshot of a format version this code does not read.
            public static var unsupportedVersion: Code { Code(.unsupportedVersion) }

            /// The code's name, e.g. `corrupt`.
            public var description: String { base.rawValue }
        }

        /// What went wrong.
        public let code: Code
        /// A sentence for a person, naming the file.
        public let message: String
        /// The error that caused this one, if any.
        public let cause: (any Error)?

        /// Creates an error from a code, a message naming the file and the error that caused it.
        public init(code: Code, message: String, cause: (any Error)? = nil) {
            self.code = code
            self.message = message
            self.cause = cause
        }

        /// The code and the message, then the cause when there is one.
        public var description: String {
            if let cause { return "\(code): \(message) (\(cause))" }
            return "\(code): \(message)"
        }
    }
}
