@testable import SondeLink
import Testing

/// The pieces of `LinkForwarding` that need no privileges: which device names it takes, and the
/// nft table it writes (checked for real by LinkDestinationCLITests, as root).
@Suite struct LinkForwardingTests {
    @Test func linkTUNsAreRecognizedAndLeftToTheirRun() {
        #expect(HostDevices.isLinkTUN("sonde123h") && HostDevices.isLinkTUN("sonde4c"))
        #expect(!HostDevices.isLinkTUN("sondeh") && !HostDevices.isLinkTUN("sonde12x") && !HostDevices.isLinkTUN("sondex1h")
            && !HostDevices.isLinkTUN("eth0"))
    }

    @Test func onlyPlainDeviceNamesGoIntoARuleOrAPath() {
        for name in ["eth0", "veth-a.10", "br_lan", "srt12h", "abcdefghijklmno"] { #expect(HostDevices.isPlainName(name), "\(name)") }
        for name in ["", ".", "..", "a/b", "a\"b", "a b", "eth0:1", "abcdefghijklmnop", "a}b", "é"] {
            #expect(!HostDevices.isPlainName(name), "\(name)")
        }
    }

    @Test func tablesAreNamedAfterTheirNamespaceAndReadBackToTheirPid() {
        #expect(LinkForwarding.tableName(for: LinkAddressPlan(pid: 4242, slot: 5)) == "sonde_link_4242")
        #expect(LinkForwarding.pid(ofTable: "sonde_link_4242") == 4242 && LinkForwarding.pid(ofTable: "sonde_link_77_2") == 77)
        for name in ["sonde_link_", "sonde_link_x1", "sonde_link_12x", "sonde_link_0", "sonde_link_99999999999", "other_4242", "sonde_link_-3"] {
            #expect(LinkForwarding.pid(ofTable: Substring(name)) == nil, "\(name)")
        }
    }

    @Test func theTableMasqueradesTheNamespaceAndGuardsTheFlippedDevices() {
        let plan = LinkAddressPlan(pid: 4242, slot: 5)
        let text = LinkForwarding.rules(table: "sonde_link_4242", plan: plan, flipped: ["eth0", "srt7h"])
        #expect(text.contains("table ip sonde_link_4242 {"))
        #expect(text.contains(#"set flipped { type ifname; elements = { "eth0", "srt7h" }; }"#))
        #expect(text.contains(#"ip saddr 198.18.0.22 oifname != "sonde4242h" masquerade"#))
        #expect(text.contains(#"iifname @flipped oifname "sonde*" ct direction reply ct status snat accept"#))
        #expect(text.contains("iifname @flipped drop"))
        // Before routing: what the flag would newly forward is dropped, replies of masqueraded flows pass.
        #expect(text.contains("type filter hook prerouting priority dstnat + 10; policy accept;\n    iifname != @flipped accept\n"
            + "    ct direction reply ct status snat ip daddr 198.18.0.0/15 accept\n    fib daddr type unicast drop"))
        // Nothing flipped: an empty set, still valid nft.
        #expect(LinkForwarding.rules(table: "t", plan: plan, flipped: []).contains("set flipped { type ifname; }"))
    }
}
