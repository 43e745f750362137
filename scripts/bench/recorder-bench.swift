// The recorder alone, in process (scripts/bench/recorder-bench.sh): RunRecorder.record of COUNT tasks like
// section 2's (a 1 KiB GET from nginx, 32 connections, the response's 8 header strings shared between tasks
// as the engine's memo shares them), then finish. Usage: recorder-bench COUNT DIRECTORY
import Foundation
import SondeCore
import SondeReport

func threadCPU() -> Double { var s = timespec(); clock_gettime(CLOCK_THREAD_CPUTIME_ID, &s); return Double(s.tv_sec) * 1e6 + Double(s.tv_nsec) / 1e3 }
func processCPU() -> Double { var u = rusage(); getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
  return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) }
let count = Int(CommandLine.arguments[1])!
let directory = CommandLine.arguments[2]
let url = "http://127.0.0.1:40123/1k.bin"
let headers = [HeaderField(name: "Server", value: "nginx/1.22.1"), HeaderField(name: "Date", value: "Sat, 28 Nov 2026 12:37:59 GMT"),
  HeaderField(name: "Content-Type", value: "application/octet-stream"), HeaderField(name: "Content-Length", value: "1024"),
  HeaderField(name: "Last-Modified", value: "Sat, 28 Nov 2026 12:37:54 GMT"), HeaderField(name: "Connection", value: "keep-alive"),
  HeaderField(name: "ETag", value: "\"6b0acb22-400\""), HeaderField(name: "Accept-Ranges", value: "bytes")]
let start = Timestamp.now()
func task(_ i: Int) -> ProbeTask {
  let t0 = start.adding(microseconds: Int64(i) * 45)
  var t = TransactionMetrics(request: RequestRecord(method: "GET", url: url, headers: []), response: ResponseRecord(statusCode: 200, headers: headers),
    fetchStartDate: t0, domainLookupStartDate: i % 625 == 0 ? t0 : nil, domainLookupEndDate: i % 625 == 0 ? t0.adding(microseconds: Int64(60)) : nil,
    connectStartDate: i % 625 == 0 ? t0.adding(microseconds: Int64(60)) : nil, connectEndDate: i % 625 == 0 ? t0.adding(microseconds: Int64(3500)) : nil,
    requestStartDate: t0.adding(microseconds: Int64(40 + i % 7)), requestEndDate: t0.adding(microseconds: Int64(52 + i % 7)),
    responseStartDate: t0.adding(microseconds: Int64(398 + i % 13)), responseEndDate: t0.adding(microseconds: Int64(524 + i % 17)),
    networkProtocolName: "http/1.1", isReusedConnection: i % 625 != 0,
    phases: Phases(dns: i % 625 == 0 ? 0.06 : nil, connect: i % 625 == 0 ? 3.44 : nil, send: 0.052 + Double(i % 7) / 1000,
                   wait: 0.346 + Double(i % 13) / 1000, receive: 0.126 + Double(i % 17) / 1000, total: 0.524 + Double(i % 31) / 1000))
  t.remoteAddress = "127.0.0.1"; t.remotePort = 40123; t.localAddress = "127.0.0.1"; t.localPort = 40000 + i % 32
  t.connectionID = i % 32; t.queue = 0; t.libcurlQueue = 0.029
  t.countOfRequestHeaderBytesSent = 85; t.countOfResponseHeaderBytesReceived = 254
  t.countOfResponseBodyBytesReceived = 1024; t.countOfResponseBodyBytesAfterDecoding = 1024
  return ProbeTask(url: url, iteration: i / 32, taskInterval: TaskInterval(start: t0, durationMs: 0.6 + Double(i % 29) / 1000), redirectCount: 0,
                   error: nil, transactionMetrics: [t])
}
let tasks = (0..<count).map(task)
let folder = try RunFolder(outputDirectory: directory, runID: "bench")
let run = RunInfo(id: "bench", command: "probe", arguments: [], startedAt: start, status: .error, insecure: false, redacted: true)
let recorder = try RunRecorder(folder: folder, tool: ToolInfo(libcurl: "8.23.0", features: []), run: run)
let p0 = processCPU(), r0 = threadCPU()
for t in tasks { try recorder.record(t) }
let r1 = threadCPU()
try recorder.finish(status: .passed)
let r2 = threadCPU(), p1 = processCPU()
print(String(format: "record %.2f µs/task, finish %.2f µs/task, process %.2f µs/task", (r1 - r0) / Double(count), (r2 - r1) / Double(count), (p1 - p0) / Double(count)))
// The same tasks through each step alone (thread CPU µs per task): the breakdown of what `record` does.
do {
  var line = JSONOutput(capacity: 8192)
  var c0 = threadCPU()
  for t in tasks { line.reset(); t.writeJSON(to: &line) }
  let encode = (threadCPU() - c0) / Double(count)
  var har = HARWriter(tool: ToolInfo(libcurl: "8.23.0", features: []), run: run)
  var harBuffer: [UInt8] = []
  harBuffer.reserveCapacity(1 << 21)
  c0 = threadCPU()
  for t in tasks { har.add(t, to: &harBuffer); if harBuffer.count > 1 << 20 { harBuffer.removeAll(keepingCapacity: true) } }
  let harCost = (threadCPU() - c0) / Double(count)
  var junit = 0
  c0 = threadCPU()
  for t in tasks { junit &+= JUnitWriter.testCase(t).count }
  let junitCost = (threadCPU() - c0) / Double(count)
  var summary = ProbeSummaryBuilder()
  c0 = threadCPU()
  for t in tasks { summary.add(t) }
  let summaryCost = (threadCPU() - c0) / Double(count)
  c0 = threadCPU()
  var names = 0
  for t in tasks { names &+= t.requestName.utf8.count }
  let nameCost = (threadCPU() - c0) / Double(count)
  print(String(format: "steps: encode %.2f, HAR entry %.2f, JUnit case %.2f, summary %.2f, requestName %.2f µs/task (%d bytes a line, %d)",
               encode, harCost, junitCost, summaryCost, nameCost, line.bytes.count, junit + names))
}
