/// Errors of a prefetch run as a whole (an item's failure is a ``PrefetchResult``, not an error).
public struct PrefetchError: Error, Sendable, CustomStringConvertible {
    private enum Code: String {
        case unreadableList
    }

    private let code: Code
    /// A human-readable explanation.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The list could not be opened or read.
    public static func unreadableList(_ path: String, _ reason: String) -> PrefetchError {
        PrefetchError(.unreadableList, "cannot read the list '\(path)': \(reason)")
    }

    /// A short, stable label (`unreadable-list`).
    public var shortDescription: String {
        switch code {
        case .unreadableList: "unreadable-list"
        }
    }

    /// The message, e.g. `cannot read the list 'urls.txt': No such file or directory`.
    public var description: String { message }
}
