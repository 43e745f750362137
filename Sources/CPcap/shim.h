// libpcap for Swift (Debian: libpcap-dev). Only the reading API is used by the offline analyser;
// live capture adds pcap_create/pcap_activate and friends from the same header.
#include <pcap/pcap.h>
