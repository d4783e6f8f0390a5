import Foundation
import Testing

@testable import AssetServer

/// The pure parsers of a client's `Range` and conditional fields.
@Suite("Client Range and conditional fields")
struct ClientFieldsTests {
    @Test func rangesParseAndResolve() {
        let cases: [(String, ClientRange?, Int64, Range<Int64>?)] = [
            ("bytes=0-0", .from(first: 0, last: 0), 10, 0..<1),
            ("bytes=2-5", .from(first: 2, last: 5), 10, 2..<6),
            ("bytes=5-", .from(first: 5, last: nil), 10, 5..<10),
            ("bytes=8-100", .from(first: 8, last: 100), 10, 8..<10),
            ("bytes=-3", .suffix(count: 3), 10, 7..<10),
            ("bytes=-30", .suffix(count: 30), 10, 0..<10),
            ("bytes=10-", .from(first: 10, last: nil), 10, nil),
            ("bytes=10-12", .from(first: 10, last: 12), 10, nil),
            (" BYTES = 1-2 ", nil, 10, nil),
            ("Bytes=1-2", .from(first: 1, last: 2), 10, 1..<3),
            ("bytes= 1 - 2", .from(first: 1, last: 2), 10, 1..<3),
        ]
        for (header, expected, length, resolved) in cases {
            let parsed = ClientRange(header: header)
            #expect(parsed == expected, "\(header)")
            if let parsed { #expect(parsed.resolve(length: length) == resolved, "\(header)") }
        }
        // ignored: several ranges, other units, reversed or malformed ranges, a zero suffix, huge numbers
        for header in ["bytes=0-1,3-4", "items=0-1", "bytes=5-2", "bytes=-0", "bytes=a-b", "bytes=-", "bytes=1", "bytes=99999999999999999999-",
                       "bytes=--1", "bytes=+1-2", ""] {
            #expect(ClientRange(header: header) == nil, "\(header)")
        }
        #expect(ClientRange.suffix(count: 3).resolve(length: 0) == nil)
        #expect(ClientRange.contentRange(2..<6, length: 10) == "bytes 2-5/10")
    }

    @Test func conditionsFollowRFC9110Precedence() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let lastModified = "Tue, 14 Nov 2023 22:13:20 GMT"
        let earlier = "Tue, 14 Nov 2023 22:13:19 GMT"
        let later = "Tue, 14 Nov 2023 22:13:21 GMT"
        func outcome(_ conditions: ClientConditions, eTag: String? = "\"v1\"") -> ClientConditions.Outcome {
            conditions.evaluate(eTag: eTag, lastModified: lastModified, now: now)
        }
        #expect(outcome(ClientConditions()) == .proceed)
        #expect(outcome(ClientConditions(ifNoneMatch: "\"v1\"")) == .notModified)
        #expect(outcome(ClientConditions(ifNoneMatch: "W/\"v1\"")) == .notModified)
        #expect(outcome(ClientConditions(ifNoneMatch: "\"v2\", \"v1\"")) == .notModified)
        #expect(outcome(ClientConditions(ifNoneMatch: "*")) == .notModified)
        #expect(outcome(ClientConditions(ifNoneMatch: "\"v2\"")) == .proceed)
        #expect(outcome(ClientConditions(ifNoneMatch: "\"v1\""), eTag: nil) == .proceed)
        // If-None-Match wins over If-Modified-Since
        #expect(outcome(ClientConditions(ifNoneMatch: "\"v2\"", ifModifiedSince: lastModified)) == .proceed)
        #expect(outcome(ClientConditions(ifModifiedSince: lastModified)) == .notModified)
        #expect(outcome(ClientConditions(ifModifiedSince: later)) == .notModified)
        #expect(outcome(ClientConditions(ifModifiedSince: earlier)) == .proceed)
        #expect(outcome(ClientConditions(ifModifiedSince: "not a date")) == .proceed)
        // a date in the future is ignored
        #expect(outcome(ClientConditions(ifModifiedSince: "Sun, 06 Nov 2044 08:49:37 GMT")) == .proceed)
        // If-Match needs a strong match; If-Unmodified-Since applies without If-Match
        #expect(outcome(ClientConditions(ifMatch: "\"v1\"")) == .proceed)
        #expect(outcome(ClientConditions(ifMatch: "W/\"v1\"")) == .preconditionFailed)
        #expect(outcome(ClientConditions(ifMatch: "\"v2\"")) == .preconditionFailed)
        #expect(outcome(ClientConditions(ifMatch: "*")) == .proceed)
        #expect(outcome(ClientConditions(ifUnmodifiedSince: earlier)) == .preconditionFailed)
        #expect(outcome(ClientConditions(ifUnmodifiedSince: lastModified)) == .proceed)
        #expect(outcome(ClientConditions(ifMatch: "\"v1\"", ifUnmodifiedSince: earlier)) == .proceed)
        // a failed precondition wins over If-None-Match
        #expect(outcome(ClientConditions(ifMatch: "\"v2\"", ifNoneMatch: "\"v1\"")) == .preconditionFailed)
    }

    @Test func ifRangeNeedsAStrongValidator() {
        let lastModified = "Tue, 14 Nov 2023 22:13:20 GMT"
        #expect(ClientConditions().rangeApplies(eTag: "\"v1\"", lastModified: lastModified))
        #expect(ClientConditions(ifRange: "\"v1\"").rangeApplies(eTag: "\"v1\"", lastModified: nil))
        #expect(!ClientConditions(ifRange: "\"v1\"").rangeApplies(eTag: "W/\"v1\"", lastModified: nil))
        #expect(!ClientConditions(ifRange: "W/\"v1\"").rangeApplies(eTag: "W/\"v1\"", lastModified: nil))
        #expect(!ClientConditions(ifRange: "\"v2\"").rangeApplies(eTag: "\"v1\"", lastModified: nil))
        #expect(ClientConditions(ifRange: lastModified).rangeApplies(eTag: nil, lastModified: lastModified))
        #expect(!ClientConditions(ifRange: "Tue, 14 Nov 2023 22:13:21 GMT").rangeApplies(eTag: nil, lastModified: lastModified))
        #expect(!ClientConditions(ifRange: lastModified).rangeApplies(eTag: "\"v1\"", lastModified: nil))
    }
}
