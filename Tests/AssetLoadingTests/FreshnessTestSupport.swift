import AssetLoading
import Foundation

/// A fixed origin of time for the freshness tests: 2023-11-14 22:13:20 UTC.
let t0 = Date(timeIntervalSince1970: 1_700_000_000)

/// `t0` moved by `seconds`.
func at(_ seconds: Double) -> Date {
    t0.addingTimeInterval(seconds)
}

/// A stored 200 received at `t0` for a request sent at `t0`, with a `Date` of `t0` unless `headers` has one.
func storedResponse(
    status: Int = 200,
    _ headers: HeaderFields,
    requestTime: Date = t0,
    responseTime: Date = t0,
    varyingRequestHeaders: HeaderFields = HeaderFields(),
    addDate: Bool = true
) -> StoredResponse {
    var headers = headers
    if addDate && !headers.contains("Date") {
        headers.append(name: "Date", value: HTTPDate.format(responseTime))
    }
    return StoredResponse(
        status: status,
        headers: headers,
        requestTime: requestTime,
        responseTime: responseTime,
        varyingRequestHeaders: varyingRequestHeaders
    )
}
