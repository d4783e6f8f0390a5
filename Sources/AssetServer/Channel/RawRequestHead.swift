/// What ``FastPathHandler`` reads of an HTTP/1.1 request head in the raw bytes of a connection,
/// before NIO's HTTP decoder: where the head ends, how long the body is, and the few fields that
/// decide whether the event loop may answer it from memory.
///
/// It accepts only the plain form of HTTP/1.1 that every client sends (CRLF line ends, `token`
/// field names, no line folding, one `Content-Length` at most, no `Transfer-Encoding`); anything
/// else is ``Parse/unframed``, and the connection's bytes from there on go to the decoder untouched,
/// which then answers or refuses them as it always did. So the fast path never decides what a
/// request means where the decoder might decide otherwise.
struct RawRequestHead: Equatable {
    enum Method: Equatable { case get, head, other }

    /// The outcome of reading the bytes at the start of a buffer.
    enum Parse: Equatable {
        /// A whole head.
        case head(RawRequestHead)
        /// No whole head yet, and nothing seen that is not plain.
        case incomplete
        /// Not the plain form, or more than the limit without an end: the decoder's to read.
        case unframed
    }

    var method: Method
    /// The request target's bytes, as offsets into the buffer.
    var target: Range<Int>
    /// The bytes of the head, its final empty line included.
    var length: Int
    /// The body's length by `Content-Length` (0 without one).
    var bodyLength: Int
    /// Whether a field asks for more than a fresh body or a range of it: cache directives, conditions,
    /// `Expect`, two `Range` fields, or a `Connection` other than `keep-alive`.
    var needsResponder = false
    /// Whether `Connection` names `close`: the connection ends after this request's response.
    var closes = false
    /// Whether it carries `Authorization`.
    var authorized = false
    /// The value of its one `Accept` field, as offsets (nil without one; two make it
    /// ``needsResponder``).
    var accept: Range<Int>?
    /// The value of its one `Range` field, as offsets (nil without one).
    var range: Range<Int>?

    /// Reads the head at the start of `bytes`, which holds at most `limit` bytes of head before its
    /// end is found.
    static func parse(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Parse {
        let count = bytes.count
        var lineStart = 0
        var index = 0
        var head = RawRequestHead(method: .other, target: 0..<0, length: 0, bodyLength: 0)
        var sawContentLength = false
        var firstLine = true
        while true {
            // the next line end: a LF that must follow a CR
            guard let newline = Self.find(0x0A, in: bytes, from: index) else {
                // a CR must be followed by LF: a lone one is not plain even before the line ends
                if let cr = Self.find(0x0D, in: bytes, from: index), cr + 1 < count { return .unframed }
                return count > limit ? .unframed : .incomplete
            }
            guard newline > lineStart, bytes[newline - 1] == 0x0D else { return .unframed }
            let line = lineStart..<(newline - 1)
            if newline + 1 > limit { return .unframed }
            if firstLine {
                guard Self.requestLine(bytes, line, into: &head) else { return .unframed }
                firstLine = false
            } else if line.isEmpty {
                head.length = newline + 1
                return .head(head)
            } else {
                guard Self.field(bytes, line, into: &head, sawContentLength: &sawContentLength) else { return .unframed }
            }
            lineStart = newline + 1
            index = lineStart
        }
    }

    /// `method SP target SP HTTP/1.1`, with a `token` method and a visible-ASCII target.
    private static func requestLine(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>, into head: inout RawRequestHead) -> Bool {
        guard let space = find(0x20, in: bytes, from: line.lowerBound, before: line.upperBound), space > line.lowerBound else {
            return false
        }
        for i in line.lowerBound..<space where !isToken(bytes[i]) { return false }
        let targetStart = space + 1
        guard let second = find(0x20, in: bytes, from: targetStart, before: line.upperBound), second > targetStart else { return false }
        for i in targetStart..<second where !(0x21...0x7E).contains(bytes[i]) { return false }
        // the version: exactly HTTP/1.1 (1.0's connection rules are the decoder's)
        guard equals(bytes, (second + 1)..<line.upperBound, "HTTP/1.1") else { return false }
        let methodLength = space - line.lowerBound
        if methodLength == 3, bytes[line.lowerBound] == 0x47, bytes[line.lowerBound + 1] == 0x45, bytes[line.lowerBound + 2] == 0x54 {
            head.method = .get
        } else if methodLength == 4, bytes[line.lowerBound] == 0x48, bytes[line.lowerBound + 1] == 0x45,
            bytes[line.lowerBound + 2] == 0x41, bytes[line.lowerBound + 3] == 0x44
        {
            head.method = .head
        } else if methodLength == 7, equalsLowercased(bytes, line.lowerBound..<space, "connect") {
            return false  // CONNECT takes the connection over: the decoder's
        }
        head.target = targetStart..<second
        return true
    }

    /// `name: value` with a `token` name, optional white space around a value of visible ASCII,
    /// spaces, tabs and non-ASCII bytes; records the fields the fast path reads.
    private static func field(
        _ bytes: UnsafeRawBufferPointer, _ line: Range<Int>, into head: inout RawRequestHead, sawContentLength: inout Bool
    ) -> Bool {
        guard let colon = find(0x3A, in: bytes, from: line.lowerBound, before: line.upperBound), colon > line.lowerBound else {
            return false  // also a folded line, which starts with white space
        }
        for i in line.lowerBound..<colon where !isToken(bytes[i]) { return false }
        var start = colon + 1
        var end = line.upperBound
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        for i in start..<end {
            let byte = bytes[i]
            if byte < 0x20 && byte != 0x09 || byte == 0x7F { return false }
        }
        let name = line.lowerBound..<colon
        switch name.count {
        case 5:
            if equalsLowercased(bytes, name, "range") {
                if head.range != nil { head.needsResponder = true }
                head.range = start..<end
            }
        case 6:
            if equalsLowercased(bytes, name, "accept") {
                if head.accept != nil { head.needsResponder = true }
                head.accept = start..<end
            } else if equalsLowercased(bytes, name, "pragma") || equalsLowercased(bytes, name, "expect") {
                head.needsResponder = true
            }
        case 7:
            if equalsLowercased(bytes, name, "upgrade") { return false }
        case 8:
            if equalsLowercased(bytes, name, "if-match") || equalsLowercased(bytes, name, "if-range") { head.needsResponder = true }
        case 10:
            if equalsLowercased(bytes, name, "connection") {
                if equalsLowercased(bytes, start..<end, "keep-alive") { break }
                head.needsResponder = true
                for token in tokens(bytes, start..<end) {
                    if equalsLowercased(bytes, token, "close") { head.closes = true }
                    if equalsLowercased(bytes, token, "upgrade") { return false }
                }
            }
        case 13:
            if equalsLowercased(bytes, name, "cache-control") || equalsLowercased(bytes, name, "if-none-match") {
                head.needsResponder = true
            } else if equalsLowercased(bytes, name, "authorization") {
                head.authorized = true
            }
        case 14:
            if equalsLowercased(bytes, name, "content-length") {
                guard !sawContentLength, start < end, end - start <= 15 else { return false }
                var length = 0
                for i in start..<end {
                    guard (0x30...0x39).contains(bytes[i]) else { return false }
                    length = length * 10 + Int(bytes[i] - 0x30)
                }
                sawContentLength = true
                head.bodyLength = length
            }
        case 17:
            if equalsLowercased(bytes, name, "transfer-encoding") { return false }
            if equalsLowercased(bytes, name, "if-modified-since") { head.needsResponder = true }
        case 19:
            if equalsLowercased(bytes, name, "if-unmodified-since") { head.needsResponder = true }
        default:
            break
        }
        return true
    }

    /// The comma-separated elements of a list value, trimmed.
    private static func tokens(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = value.lowerBound
        for i in value.lowerBound...value.upperBound where i == value.upperBound || bytes[i] == 0x2C {
            var a = start, b = i
            while a < b, bytes[a] == 0x20 || bytes[a] == 0x09 { a += 1 }
            while b > a, bytes[b - 1] == 0x20 || bytes[b - 1] == 0x09 { b -= 1 }
            result.append(a..<b)
            start = i + 1
        }
        return result
    }

    /// Whether `bytes[range]` is `text`.
    private static func equals(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != expected[offset] { return false }
        return true
    }

    /// Whether `bytes[range]`, lowercased, is `lowercase` (which is lowercase ASCII).
    private static func equalsLowercased(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for offset in 0..<range.count {
            var byte = bytes[range.lowerBound + offset]
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            if byte != expected[offset] { return false }
        }
        return true
    }

    /// RFC 9110's `tchar`.
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// The first index of `byte` in `bytes[from..<before]`.
    private static func find(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from: Int, before: Int? = nil) -> Int? {
        let end = before ?? bytes.count
        guard from < end, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + from, Int32(byte), end - from) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}

#if canImport(Glibc)
import Glibc
#endif
