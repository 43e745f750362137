import NIOCore
import NIOEmbedded
import NIOPosix
import NIOWebSocket
import Testing
@testable import SondeWebSocket

/// The frames sonde writes itself (past NIO's encoder), read back by NIO's own decoder.
@Suite struct ClientFrameTests {
    private func decode(_ bytes: ByteBuffer) throws -> [WebSocketFrame] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)))
        try channel.writeInbound(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try channel.readInbound(as: WebSocketFrame.self) { frames.append(frame) }
        _ = try channel.finish()
        return frames
    }

    @Test(arguments: [0, 1, 8, 125, 126, 127, 65_535, 65_536, 70_001])
    func everyLengthFormDecodesToTheSamePayloadAndKey(length: Int) throws {
        var payload = ByteBufferAllocator().buffer(capacity: length)
        for index in 0..<length { payload.writeInteger(UInt8(truncatingIfNeeded: index &* 31 &+ 7)) }
        let key: WebSocketMaskingKey = [0x12, 0x9A, 0xFE, 0x01]
        var out = ByteBufferAllocator().buffer(capacity: 16)
        ClientFrame.write(.binary, payload: payload, key: key, into: &out)
        let frames = try decode(out)
        #expect(frames.count == 1)
        let frame = try #require(frames.first)
        #expect(frame.fin && !frame.rsv1 && !frame.rsv2 && !frame.rsv3)
        #expect(frame.opcode == .binary)
        #expect(frame.maskKey == key)
        #expect(frame.unmaskedData == payload)
        // The shortest length form (RFC 6455 §5.2): 2, 4 or 10 header bytes, then the key.
        let header = length <= 125 ? 2 : length <= 65_535 ? 4 : 10
        #expect(out.readableBytes == header + 4 + length)
    }

    @Test func aPingCarriesItsSequenceMaskedAndTwoFramesFollowEachOther() throws {
        var out = ByteBufferAllocator().buffer(capacity: 32)
        let key: WebSocketMaskingKey = [0xDE, 0xAD, 0xBE, 0xEF]
        ClientFrame.writePing(sequence: 0x0102_0304_0506_0708, key: key, into: &out)
        var close = ByteBufferAllocator().buffer(capacity: 8)
        close.writeInteger(UInt16(1000))
        close.writeString("bye")
        ClientFrame.write(.connectionClose, payload: close, key: [1, 2, 3, 4], into: &out)
        let frames = try decode(out)
        #expect(frames.map(\.opcode) == [.ping, .connectionClose])
        var ping = frames[0].unmaskedData
        #expect(frames[0].maskKey == key)
        #expect(ping.readInteger(as: UInt64.self) == 0x0102_0304_0506_0708)
        // Masked on the wire: the payload bytes as sent differ from the sequence's.
        #expect(frames[0].data.getInteger(at: frames[0].data.readerIndex, as: UInt64.self) != 0x0102_0304_0506_0708)
        #expect(frames[1].unmaskedData == close)
    }

    @Test func maskingKeysVaryAcrossRefills() {
        var source = MaskingKeySource()
        let keys = (0..<100).map { _ in source.key() }
        // 100 keys over three refills of the pool; 32-bit keys repeating would mean a broken source.
        #expect(Set(keys.map { Array($0) }).count >= 99)
    }

    @Test func deadlineQueueEntriesRunInOrderAfterTheirDelay() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let started = monotonicNanos()
        let ran = try await loop.submit { () -> EventLoopFuture<[(Int, UInt64)]> in
            let promise = loop.makePromise(of: [(Int, UInt64)].self)
            let queue = LoopDeadlineQueue.on(loop, delay: .milliseconds(80))
            var order: [(Int, UInt64)] = []
            for index in 0..<3 {
                queue.add {
                    order.append((index, monotonicNanos() - started))
                    // An entry added while the queue runs comes a delay later.
                    if index == 0 {
                        queue.add {
                            order.append((3, monotonicNanos() - started))
                            promise.succeed(order)
                        }
                    }
                }
            }
            return promise.futureResult
        }.flatMap { $0 }.get()
        #expect(ran.map(\.0) == [0, 1, 2, 3])
        #expect(ran[0].1 >= 80_000_000 && ran[2].1 < 1_000_000_000)
        #expect(ran[3].1 >= 160_000_000)
    }
}
