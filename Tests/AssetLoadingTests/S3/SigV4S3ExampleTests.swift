import AssetLoading
import Foundation
import Testing

/// The S3 API reference's "Examples: Signature Calculations in AWS Signature Version 4" (header form):
/// `examplebucket`, `us-east-1`, 2013-05-24T00:00:00Z, every request with `x-amz-content-sha256`.
@Suite struct SigV4S3ExampleTests {
    static let signer = SigV4Signer(
        credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)  // 20130524T000000Z
    static let host = ("Host", "examplebucket.s3.amazonaws.com")

    static func sign(
        _ method: String, _ path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
        payloadHash: String = SigV4Signer.emptyPayloadHash
    ) -> SigV4Signer.Signed {
        Self.signer.sign(
            method: method, path: path, query: query,
            headers: [Self.host, ("x-amz-content-sha256", payloadHash)] + headers, payloadHash: payloadHash, date: Self.date)
    }

    static func authorization(_ signedHeaders: String, _ signature: String) -> String {
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    @Test func getObjectWithRange() {
        let signed = Self.sign("GET", "/test.txt", headers: [("Range", "bytes=0-9")])
        #expect(
            signed.authorization
                == Self.authorization(
                    "host;range;x-amz-content-sha256;x-amz-date", "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"))
    }

    /// `test$file.text`: the `$` signs as `%24`.
    @Test func putObject() {
        let body = Array("Welcome to Amazon S3.".utf8)
        let hash = SigV4Signer.sha256Hex(body)
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let signed = Self.sign(
            "PUT", "/test$file.text",
            headers: [("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")], payloadHash: hash)
        #expect(signed.canonicalRequest.split(separator: "\n")[1] == "/test%24file.text")
        #expect(
            signed.authorization
                == Self.authorization(
                    "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
                    "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"))
    }

    /// `?lifecycle`: a name without a value signs as `lifecycle=`.
    @Test func getBucketLifecycle() {
        let signed = Self.sign("GET", "/", query: [("lifecycle", "")])
        #expect(
            signed.authorization
                == Self.authorization(
                    "host;x-amz-content-sha256;x-amz-date", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"))
    }

    /// `?max-keys=2&prefix=J`, given in the other order: sorted before signing.
    @Test func listObjects() {
        let signed = Self.sign("GET", "/", query: [("prefix", "J"), ("max-keys", "2")])
        #expect(
            signed.authorization
                == Self.authorization(
                    "host;x-amz-content-sha256;x-amz-date", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"))
    }

    @Test func encodesKeysOnceAsS3Does() {
        #expect(SigV4Signer.uriEncode("a b+c%d/é~", keepSlash: true) == "a%20b%2Bc%25d/%C3%A9~")
        #expect(SigV4Signer.uriEncode("a/b", keepSlash: false) == "a%2Fb")
    }
}
