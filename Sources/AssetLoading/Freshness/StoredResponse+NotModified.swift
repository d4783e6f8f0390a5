#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoredResponse {
    /// Header fields a 304 never replaces: framing and fields the stored body depends on (RFC 9111 3.2).
    public static let fieldsKeptOnNotModified: Set<String> = [
        "content-length", "content-encoding", "content-range", "transfer-encoding", "trailer",
        "connection", "keep-alive", "proxy-connection", "te", "upgrade",
    ]

    /// The stored header fields updated from a 304's fields (RFC 9111 3.2, 4.3.4), or nil when the 304
    /// does not select this response and nothing may be updated.
    ///
    /// Selection: a strong `ETag` in the 304 must equal the stored ETag (strong comparison); a weak one
    /// must match it weakly; without an ETag, a `Last-Modified` in the 304 must equal the stored one when
    /// both exist. Each field of the 304 then replaces all stored lines of the same name, except
    /// ``fieldsKeptOnNotModified`` and the fields the 304's `Connection` names.
    public func updatedHeaders(afterNotModified notModified: HeaderFields) -> HeaderFields? {
        guard self.isSelected(byNotModified: notModified) else { return nil }
        var excluded = Self.fieldsKeptOnNotModified
        for name in notModified.listMembers(for: "Connection") {
            excluded.insert(name.lowercased())
        }
        var updated = self.headers
        var replaced: Set<String> = []
        for field in notModified.fields {
            let name = field.name.lowercased()
            if excluded.contains(name) { continue }
            if replaced.insert(name).inserted {
                updated.removeAll(named: name)
            }
            updated.append(name: field.name, value: field.value)
        }
        return updated
    }

    /// This response refreshed by a 304 received at `responseTime` for a request sent at `requestTime`:
    /// headers merged by ``updatedHeaders(afterNotModified:)`` and the times replaced, so that its age
    /// starts again. Nil when the 304 does not select this response.
    public func revalidated(withNotModified notModified: HeaderFields, requestTime: Date, responseTime: Date) -> StoredResponse? {
        guard let headers = self.updatedHeaders(afterNotModified: notModified) else { return nil }
        var refreshed = self
        refreshed.headers = headers
        refreshed.requestTime = requestTime
        refreshed.responseTime = responseTime
        return refreshed
    }

    private func isSelected(byNotModified notModified: HeaderFields) -> Bool {
        if let newTag = notModified["ETag"].flatMap(EntityTag.init) {
            guard let storedTag = self.eTag.flatMap(EntityTag.init) else { return false }
            return newTag.isWeak ? newTag.weaklyMatches(storedTag) : newTag.stronglyMatches(storedTag)
        }
        if let newLastModified = notModified["Last-Modified"], let storedLastModified = self.headers["Last-Modified"] {
            guard let new = HTTPDate.parse(newLastModified, now: self.responseTime),
                let old = HTTPDate.parse(storedLastModified, now: self.responseTime)
            else { return newLastModified == storedLastModified }
            return new == old
        }
        return true
    }
}
