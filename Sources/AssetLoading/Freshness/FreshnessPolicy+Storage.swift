extension FreshnessPolicy {
    /// The statuses whose caching rules this cache implements, for `must-understand`.
    public static let understoodStatuses: Set<Int> = [200, 203, 204, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414, 501]

    /// The methods whose responses are stored.
    public static let storableMethods: Set<String> = ["GET", "HEAD"]

    /// Whether a response may be stored (RFC 9111 3), for this policy's private or shared mode.
    public func isStorable(status: Int, method: String, responseHeaders: HeaderFields, requestHeaders: HeaderFields) -> Bool {
        Self.isStorable(
            status: status,
            method: method,
            responseHeaders: responseHeaders,
            requestHeaders: requestHeaders,
            shared: self.configuration.shared
        )
    }

    /// Whether a response may be stored (RFC 9111 3).
    ///
    /// Only final responses to GET and HEAD; never with `no-store` in the request or the response (but
    /// a response with `must-understand` and an understood status ignores its `no-store`); never
    /// 206 or 304 (partial and not-modified responses are handled by the range and revalidation code, not
    /// stored as entries); never `Vary: *` (it could never be reused). A shared cache also refuses
    /// `private`, and answers to requests with `Authorization` unless `public`, `s-maxage` or
    /// `must-revalidate` allow them (3.5). Then the response needs `public`, `private` (private cache),
    /// `max-age`, `s-maxage` (shared cache), `Expires`, or a heuristically cacheable status.
    public static func isStorable(
        status: Int,
        method: String,
        responseHeaders: HeaderFields,
        requestHeaders: HeaderFields,
        shared: Bool
    ) -> Bool {
        guard Self.storableMethods.contains(method.uppercased()), (200...599).contains(status), status != 206, status != 304
        else { return false }
        let response = CacheControl(headers: responseHeaders)
        let request = CacheControl(headers: requestHeaders)
        if response.mustUnderstand {
            // 5.2.2.3: a status whose rules the cache does not know is never stored; a known one
            // is stored even under `no-store`
            guard Self.understoodStatuses.contains(status) else { return false }
        } else if response.noStore {
            return false
        }
        if request.noStore || Vary.isUnmatchable(responseHeaders) {
            return false
        }
        if shared {
            if response.isPrivate { return false }
            if requestHeaders.contains("Authorization")
                && !(response.isPublic || response.sharedMaxAge != nil || response.mustRevalidate)
            {
                return false
            }
        }
        return response.isPublic
            || (response.isPrivate && !shared)
            || response.maxAge != nil
            || (shared && response.sharedMaxAge != nil)
            || responseHeaders.contains("Expires")
            || Self.heuristicallyCacheableStatuses.contains(status)
    }

    /// The header fields to store: all but `Connection`, the fields it names, and the other hop-by-hop
    /// fields (`Keep-Alive`, `Proxy-Connection`, `TE`, `Transfer-Encoding`, `Upgrade`) (RFC 9111 3.1).
    public static func headersToStore(_ responseHeaders: HeaderFields) -> HeaderFields {
        var excluded: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade"]
        for name in responseHeaders.listMembers(for: "Connection") {
            excluded.insert(name.lowercased())
        }
        return HeaderFields(
            responseHeaders.fields.filter { !excluded.contains($0.name.lowercased()) }.map { ($0.name, $0.value) }
        )
    }
}
