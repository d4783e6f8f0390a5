import AssetLoading
import Foundation

/// What a client's conditional header fields ask of a stored representation (RFC 9110 13.2.2), for
/// `GET` and `HEAD`: `If-None-Match` (weak comparison) and, without it, `If-Modified-Since` decide a
/// `304`; `If-Match` and `If-Unmodified-Since` a `412`; `If-Range` whether a `Range` applies.
struct ClientConditions: Sendable {
    var ifMatch: String?
    var ifNoneMatch: String?
    var ifModifiedSince: String?
    var ifUnmodifiedSince: String?
    var ifRange: String?

    /// The outcome of evaluating the preconditions.
    enum Outcome: Equatable {
        /// Send the representation (or the range).
        case proceed
        /// `304 Not Modified`.
        case notModified
        /// `412 Precondition Failed`.
        case preconditionFailed
    }

    var isEmpty: Bool {
        ifMatch == nil && ifNoneMatch == nil && ifModifiedSince == nil && ifUnmodifiedSince == nil && ifRange == nil
    }

    /// Evaluates the preconditions against the representation's `eTag` and `lastModified` (the
    /// header values as stored), at `now`.
    func evaluate(eTag: String?, lastModified: String?, now: Date) -> Outcome {
        let modified = lastModified.flatMap { HTTPDate.parse($0, now: now) }
        if let ifMatch {
            guard Self.matches(ifMatch, eTag: eTag, strong: true) else { return .preconditionFailed }
        } else if let ifUnmodifiedSince, let since = HTTPDate.parse(ifUnmodifiedSince, now: now), let modified {
            guard modified <= since else { return .preconditionFailed }
        }
        if let ifNoneMatch {
            return Self.matches(ifNoneMatch, eTag: eTag, strong: false) ? .notModified : .proceed
        }
        if let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince, now: now), let modified, since <= now {
            return modified <= since ? .notModified : .proceed
        }
        return .proceed
    }

    /// Whether a `Range` applies under `If-Range` (13.1.5): no `If-Range`, or one that names this
    /// representation by a strong ETag or by its exact `Last-Modified` date.
    func rangeApplies(eTag: String?, lastModified: String?) -> Bool {
        guard let ifRange = ifRange?.trimmingSpaces else { return true }
        if ifRange.hasPrefix("\"") || ifRange.hasPrefix("W/") {
            guard let condition = EntityTag(String(ifRange)), let eTag, let current = EntityTag(eTag) else { return false }
            return condition.stronglyMatches(current)
        }
        guard let lastModified else { return false }
        return ifRange == lastModified.trimmingSpaces
    }

    /// Whether a list of entity tags (or `*`) matches `eTag`.
    static func matches(_ list: String, eTag: String?, strong: Bool) -> Bool {
        if list.trimmingSpaces == "*" { return true }  // evaluated only where a representation exists
        guard let eTag, let current = EntityTag(eTag) else { return false }
        for member in HeaderFields([("If-None-Match", list)]).listMembers(for: "If-None-Match") {
            guard let tag = EntityTag(member) else { continue }
            if strong ? tag.stronglyMatches(current) : tag.weaklyMatches(current) { return true }
        }
        return false
    }
}
