import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension S3Client {
    /// A multipart upload: initiate, the parts in order (each retried on its own), complete; any
    /// failure aborts the upload so that no part is left stored.
    func putMultipart(
        _ location: S3Location, body: [UInt8], contentType: String?, deadline: NIODeadline
    ) async throws(LoaderError) -> String? {
        var headers = HTTPHeaders()
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        let uploadID = try await self.withRetries { () async throws(LoaderError) -> String in
            let response = try await self.send(.POST, location, query: [("uploads", "")], headers: headers, deadline: deadline)
            let text = try await Self.text(of: response)
            guard let id = Self.element("UploadId", in: text), !id.isEmpty else {
                throw LoaderError.invalidResponse.with(message: "POST \(location)?uploads: no UploadId in the answer")
            }
            return id
        }
        do {
            var parts: [(number: Int, eTag: String)] = []
            var offset = 0
            while offset < body.count {
                let end = min(offset + self.configuration.partSize, body.count)
                let part = Array(body[offset..<end])
                let number = parts.count + 1
                let eTag = try await self.withRetries { () async throws(LoaderError) -> String in
                    let query = [("partNumber", String(number)), ("uploadId", uploadID)]
                    let response = try await self.send(.PUT, location, query: query, body: part, deadline: deadline)
                    _ = try? await response.body.collect(upTo: 64 * 1024)
                    guard let eTag = response.headers.first(name: "ETag") else {
                        throw LoaderError.invalidResponse.with(message: "PUT \(location) part \(number): no ETag")
                    }
                    return eTag
                }
                parts.append((number, eTag))
                offset = end
            }
            var xml = "<CompleteMultipartUpload>"
            for part in parts {
                xml += "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(Self.escaped(part.eTag))</ETag></Part>"
            }
            xml += "</CompleteMultipartUpload>"
            let complete = Array(xml.utf8)
            return try await self.withRetries { () async throws(LoaderError) -> String? in
                let response = try await self.send(.POST, location, query: [("uploadId", uploadID)], body: complete, deadline: deadline)
                let text = try await Self.text(of: response)
                // S3 may answer 200 and then an <Error> in the body
                if let code = Self.element("Code", in: text), text.contains("<Error>") {
                    throw LoaderError.http(code == "SlowDown" || code == "InternalError" ? 503 : 400).with(
                        message: "POST \(location)?uploadId: \(code)")
                }
                return Self.element("ETag", in: text).flatMap { $0.isEmpty ? nil : $0 }
            }
        } catch {
            _ = try? await self.send(.DELETE, location, query: [("uploadId", uploadID)], deadline: .now() + .seconds(30))
            throw error
        }
    }

    /// The body of a small XML answer.
    static func text(of response: HTTPClientResponse) async throws(LoaderError) -> String {
        do {
            return String(buffer: try await response.body.collect(upTo: 1024 * 1024))
        } catch {
            throw LoaderError.mapping(error)
        }
    }

    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
