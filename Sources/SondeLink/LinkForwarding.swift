import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One run's way from its namespace to any destination the host reaches, the way the host reaches
/// it: the host forwards the namespace's packets (arriving on the host TUN) by the host's routes
/// and masquerades them as the host's address on the way out; replies are translated back by
/// conntrack and forwarded into the TUN. The 127.0.0.1 path (`route_localnet`, local delivery)
/// needs none of this and is untouched.
///
/// What it changes on the host, all of it undone by `remove()` and, after a SIGKILL, by the next
/// run's `removeStale()`:
/// - an nft table `ip sonde_link_<pid>`: `postrouting` masquerades the namespace's address on every
///   device but the TUN; `prerouting` (after conntrack has translated replies back) guards the
///   devices in the set `flipped`: a packet from them addressed to another host (`fib daddr type
///   unicast`, what the flag would now forward) is dropped unless it is the reply of a masqueraded
///   flow to 198.18.0.0/15, so it is dropped before routing, as with the flag off, and the kernel
///   sends no redirect, TTL or fragmentation error for it; `forward` drops what the namespace sends
///   to another run's TUN or with a foreign source, and again anything from a flipped device but
///   such replies into a sonde TUN;
/// - `net.ipv4.conf.<hostTUN>.forwarding=1` (gone with the device);
/// - `net.ipv4.conf.DEV.forwarding=1` on each device with an IPv4 address whose flag was 0 (the set
///   `flipped`). IPv4 forwarding is decided by the input device's flag (`HostDevices`), so replies
///   need it on the device they come in on; the global `ip_forward` is never written. The table's
///   guards make sure the flag forwards nothing else, so the host's other traffic is treated as
///   before.
///
/// Concurrent runs share flipped devices: a run that finds a flag already on does not flip it; a
/// run that ends hands each device it flipped to a live run's table (which then guards it and
/// restores it at its own end) instead of restoring it under that run. All of it happens under
/// `HostLock`.
///
/// Threading: `install`, `remove` and `removeStale` act on the calling thread's network
/// namespace, which must be the host's (the one sonde started in).
public struct LinkForwarding: Sendable {
    /// `sonde_link_<pid>`: the namespace's name after `sonde-link-`, `-` written `_`.
    public let tableName: String
    public let plan: LinkAddressPlan
    /// The devices whose forwarding flag this run turned on at `install` (others may be handed to
    /// it later; `remove` reads the table).
    public let flipped: [String]

    public static let tablePrefix = "sonde_link_"

    /// Sets up forwarding and NAT for `plan`'s namespace (see the type). Nothing is left when it
    /// fails.
    static func install(plan: LinkAddressPlan) throws(LinkError) -> LinkForwarding {
        guard NFTables.isAvailable else { throw LinkError(.setup, NFTables.missing) }
        let table = tableName(for: plan)
        return try HostLock.withLock { () throws(LinkError) -> LinkForwarding in
            let flipped = HostDevices.withIPv4Address().filter { HostDevices.forwarding($0) == 0 }
            // An old table of this name (a reused pid) goes first; the rest is one transaction.
            try NFTables.run("add table ip \(table)\ndelete table ip \(table)\n" + rules(table: table, plan: plan, flipped: flipped))
            let forwarding = LinkForwarding(tableName: table, plan: plan, flipped: flipped)
            do throws(LinkError) {
                // The guard is in place before any flag is turned on.
                for device in flipped { try HostDevices.setForwarding(device, true) }
                try HostDevices.setForwarding(plan.hostDevice, true)
            } catch {
                forwarding.removeLocked()
                throw error
            }
            return forwarding
        }
    }

    /// The table of `plan`'s run: named after its namespace, so that names stay one per session.
    static func tableName(for plan: LinkAddressPlan) -> String {
        let suffix = plan.namespaceName.dropFirst(LinkAddressPlan.namespacePrefix.count)
        return tablePrefix + String(suffix.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// The table's text (nft syntax) for `plan` and the devices it guards.
    static func rules(table: String, plan: LinkAddressPlan, flipped: [String]) -> String {
        let inside = LinkAddressPlan.text(plan.clientAddress)
        let elements = flipped.isEmpty ? "" : " elements = { \(flipped.map { "\"\($0)\"" }.joined(separator: ", ")) };"
        return """
        table ip \(table) {
          set flipped { type ifname;\(elements) }
          chain postrouting {
            type nat hook postrouting priority srcnat; policy accept;
            ip saddr \(inside) oifname != "\(plan.hostDevice)" masquerade
          }
          chain prerouting {
            type filter hook prerouting priority dstnat + 10; policy accept;
            iifname != @flipped accept
            ct direction reply ct status snat ip daddr 198.18.0.0/15 accept
            fib daddr type unicast drop
          }
          chain forward {
            type filter hook forward priority filter; policy accept;
            iifname "\(plan.hostDevice)" ip saddr != \(inside) drop
            iifname "\(plan.hostDevice)" oifname "sonde*" drop
            iifname @flipped oifname "sonde*" ct direction reply ct status snat accept
            iifname @flipped drop
          }
        }

        """
    }

    /// Undoes `install` (see the type): the TUN stops forwarding first, then each device in the
    /// table's set is handed to a live run or restored, then the table goes. Errors are not
    /// reported: a device that vanished needs nothing. When the lock cannot be had, the table stays
    /// (its guard with it) for the next run's `removeStale`. Idempotent: without its table it does
    /// nothing more.
    public func remove() {
        _ = try? HostDevices.setForwarding(plan.hostDevice, false)
        _ = try? HostLock.withLock { () throws(LinkError) in removeLocked() }
    }

    private func removeLocked() {
        _ = try? HostDevices.setForwarding(plan.hostDevice, false)
        let devices: [String]
        if let listed = try? Self.devices(of: tableName) {
            devices = listed
        } else if ((try? Self.tables()) ?? []).contains(where: { $0.table == tableName }) {
            devices = flipped
        } else {
            return
        }
        Self.release(table: tableName, devices: devices)
    }

    /// Tables `sonde_link_<pid>` whose process is gone (a SIGKILLed run): each one's devices are
    /// handed to a live run or restored, and the table deleted. Returns their names. Without
    /// nftables there is nothing to find.
    @discardableResult
    public static func removeStale() -> [String] {
        guard NFTables.isAvailable else { return [] }
        let removed = try? HostLock.withLock { () throws(LinkError) -> [String] in
            var removed: [String] = []
            for (table, pid) in try tables() where !LinkNamespace.isAlive(pid) {
                release(table: table, devices: (try? devices(of: table)) ?? [])
                removed.append(table)
            }
            return removed
        }
        return removed ?? []
    }

    // MARK: Under the lock

    /// Hands each of `devices` to a live run's table, or restores its flag to 0 when no run is
    /// left, then deletes `table`.
    private static func release(table: String, devices: [String]) {
        let heir = ((try? tables()) ?? []).first { $0.table != table && LinkNamespace.isAlive($0.pid) }?.table
        for device in devices where HostDevices.isPlainName(device) {
            if let heir, (try? NFTables.run("add element ip \(heir) flipped { \"\(device)\" }")) != nil { continue }
            _ = try? HostDevices.setForwarding(device, false)
        }
        _ = try? NFTables.run("delete table ip \(table)")
    }

    /// sonde's tables in the `ip` family and the pid each is named after (the digits after
    /// `sonde_link_`, up to an `_` or the end).
    static func tables() throws(LinkError) -> [(table: String, pid: Int32)] {
        let output = try NFTables.run("list tables ip")
        return output.split(separator: "\n").compactMap { line -> (table: String, pid: Int32)? in
            let words = line.split(separator: " ")
            guard words.count == 3, words[0] == "table", words[1] == "ip", let pid = pid(ofTable: words[2]) else { return nil }
            return (String(words[2]), pid)
        }
    }

    /// The pid a table `sonde_link_<pid>[_...]` is named after, or nil for any other name.
    static func pid(ofTable name: Substring) -> Int32? {
        guard name.hasPrefix(tablePrefix) else { return nil }
        let rest = name.dropFirst(tablePrefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 10, digits.count == rest.count || rest.dropFirst(digits.count).first == "_",
              let pid = Int32(digits), pid > 0 else { return nil }
        return pid
    }

    /// The elements of `table`'s set `flipped`, from nft's JSON.
    static func devices(of table: String) throws(LinkError) -> [String] {
        let output = try NFTables.run("list set ip \(table) flipped", json: true)
        guard let document = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
              let items = document["nftables"] as? [[String: Any]] else {
            throw LinkError(.setup, "nft listed \(table)'s devices in a form sonde does not read")
        }
        for item in items {
            guard let set = item["set"] as? [String: Any], set["name"] as? String == "flipped" else { continue }
            if let elements = set["elem"] as? [String] { return elements }
            if let element = set["elem"] as? String { return [element] }
            return []
        }
        return []
    }
}
