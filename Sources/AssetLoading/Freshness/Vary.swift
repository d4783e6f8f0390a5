/// Matching of a request against a stored response's `Vary` (RFC 9111 4.1).
public enum Vary {
    /// The header names listed by `Vary` in `responseHeaders`, lowercased, in order, without duplicates.
    public static func fieldNames(in responseHeaders: HeaderFields) -> [String] {
        var names: [String] = []
        for member in responseHeaders.listMembers(for: "Vary") {
            let name = member.lowercased()
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// Whether the response says `Vary: *`, which no later request matches.
    public static func isUnmatchable(_ responseHeaders: HeaderFields) -> Bool {
        Self.fieldNames(in: responseHeaders).contains("*")
    }

    /// The request fields named by the response's `Vary`, to keep with the stored response.
    public static func selectingHeaders(responseHeaders: HeaderFields, requestHeaders: HeaderFields) -> HeaderFields {
        var selected = HeaderFields()
        for name in Self.fieldNames(in: responseHeaders) where name != "*" {
            for value in requestHeaders.values(for: name) {
                selected.append(name: name, value: value)
            }
        }
        return selected
    }

    /// Whether a new request may reuse the stored response as far as `Vary` is concerned.
    ///
    /// Each named field is compared after normalising: field lines combined, list members trimmed, empty
    /// members dropped. A field missing from both requests matches; present in only one, it does not;
    /// `Vary: *` never matches.
    public static func matches(stored: StoredResponse, request: HeaderFields) -> Bool {
        for name in Self.fieldNames(in: stored.headers) {
            if name == "*" { return false }
            let storedValues = stored.varyingRequestHeaders.values(for: name)
            let requestValues = request.values(for: name)
            if storedValues.isEmpty != requestValues.isEmpty { return false }
            if Self.normalised(storedValues) != Self.normalised(requestValues) { return false }
        }
        return true
    }

    /// Field lines combined into one comma-separated list with trimmed members.
    static func normalised(_ values: [String]) -> [String] {
        values.flatMap { HeaderListSplitter.split($0) }
    }
}
