import AssetLoading
import HTTPTypes

/// What a reverse proxy sends on to the origin of a client's request (RFC 9110 7.6): every field
/// but the hop-by-hop ones (`Connection` and those it names, `Keep-Alive`, `TE`, `Trailer`,
/// `Transfer-Encoding`, `Upgrade`, `Proxy-*`) and `Host`; for cacheable methods also without the
/// conditional and range fields, which the cache answers itself from the whole response it stores.
/// A `Via` is added.
enum ForwardedFields {
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade", "proxy-connection",
        "proxy-authorization", "proxy-authenticate", "host", "content-length",
    ]
    static let answeredByCache: Set<String> = [
        "if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range", "range",
    ]

    /// The fields to send on; `cacheable` for `GET` and `HEAD`.
    static func fields(of request: HTTPFields, cacheable: Bool, via: String) -> HeaderFields {
        var excluded = hopByHop
        for value in request[values: .connection] {
            for name in value.split(separator: ",") { excluded.insert(name.trimmingSpaces.lowercased()) }
        }
        if cacheable { excluded.formUnion(answeredByCache) }
        var fields = HeaderFields()
        for field in request where !excluded.contains(field.name.canonicalName) {
            fields.append(name: field.name.rawName, value: field.value)
        }
        let existingVia = request[values: .via]
        fields.removeAll(named: "Via")
        fields.append(name: "Via", value: (existingVia + [via]).joined(separator: ", "))
        return fields
    }
}
