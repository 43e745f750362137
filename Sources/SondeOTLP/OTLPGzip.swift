import CompressNIO
import NIOCore

/// gzip (RFC 1952) of an OTLP request body, for `Content-Encoding: gzip`
/// (`OTEL_EXPORTER_OTLP_COMPRESSION=gzip`), by compress-nio over the system's zlib.
enum OTLPGzip {
    /// `body` gzipped in one deflate call (the output has zlib's own bound for the input); nil
    /// for an empty body or when zlib fails (out of memory).
    static func compress(_ body: [UInt8]) -> [UInt8]? {
        guard !body.isEmpty else { return nil }
        var input = ByteBuffer(bytes: body)
        do {
            let compressor = try ZlibCompressor(algorithm: .gzip)
            var output = ByteBufferAllocator().buffer(capacity: compressor.maxSize(from: input))
            try compressor.deflate(from: &input, to: &output, flush: .finish)
            return Array(output.readableBytesView)
        } catch {
            return nil
        }
    }
}
