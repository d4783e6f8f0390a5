import AssetLoading
import Foundation
import Testing

/// The published AWS SigV4 test suite (`aws-sig-v4-test-suite`, service `service`, region `us-east-1`,
/// 2015-08-30T12:36:00Z): each request's expected `Authorization`.
@Suite struct SigV4SuiteTests {
    static let signer = SigV4Signer(
        credentials: S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    static let date = Date(timeIntervalSince1970: 1_440_938_160)  // 20150830T123600Z
    static let host = ("Host", "example.amazonaws.com")

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var method = "GET"
        var path = "/"
        var query: [(String, String)] = []
        var headers: [(String, String)] = []
        var body = ""
        var signedHeaders = "host;x-amz-date"
        var signature: String
        var testDescription: String { self.name }
    }

    static let vectors: [Vector] = [
        Vector(name: "get-vanilla", signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "get-vanilla-query-order-key-case", query: [("Param2", "value2"), ("Param1", "value1")],
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(
            name: "get-vanilla-utf8-query", query: [("\u{1234}", "bar")],
            signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Vector(name: "get-utf8", path: "/\u{1234}", signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        Vector(name: "get-space", path: "/example space/", signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
        Vector(
            name: "get-unreserved", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(
            name: "get-header-value-trim", headers: [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
            signedHeaders: "host;my-header1;my-header2;x-amz-date",
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(name: "post-vanilla", method: "POST", signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        Vector(
            name: "post-x-www-form-urlencoded", method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "Param1=value1", signedHeaders: "content-type;host;x-amz-date",
            signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
    ]

    @Test(arguments: Self.vectors)
    func signsAsPublished(_ vector: Vector) {
        let signed = Self.signer.sign(
            method: vector.method, path: vector.path, query: vector.query, headers: [Self.host] + vector.headers,
            payloadHash: SigV4Signer.sha256Hex(Array(vector.body.utf8)), date: Self.date)
        #expect(signed.amzDate == "20150830T123600Z")
        #expect(
            signed.authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=\(vector.signedHeaders), Signature=\(vector.signature)")
    }

    /// post-sts-header-before: the session token is a signed `X-Amz-Security-Token`.
    @Test func signsTheSessionToken() {
        var signer = Self.signer
        signer.credentials.sessionToken =
            "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="
        let signed = signer.sign(
            method: "POST", path: "/", query: [], headers: [Self.host], payloadHash: SigV4Signer.emptyPayloadHash, date: Self.date)
        #expect(signed.signedHeaders == "host;x-amz-date;x-amz-security-token")
        #expect(signed.authorization.hasSuffix("Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"))
        #expect(signed.fields.map(\.name) == ["X-Amz-Date", "X-Amz-Security-Token", "Authorization"])
    }

    @Test func credentialsNeverPrintTheSecret() {
        let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRET", sessionToken: "TOKEN")
        #expect(!"\(credentials)".contains("SECRET"))
        #expect(!"\(credentials)".contains("TOKEN"))
        #expect("\(credentials)".contains("AKID"))
    }
}
