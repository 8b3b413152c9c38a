package webfetch

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
)

// BlockedError is a connection refused because of its address.
type BlockedError struct {
	Addr   netip.Addr
	Reason string // "loopback", "private", "cloud metadata", …
}

func (e *BlockedError) Error() string {
	if e.Reason == "cloud metadata" {
		return fmt.Sprintf("refused to connect to %s: a cloud metadata address", e.Addr)
	}
	return fmt.Sprintf("refused to connect to %s: a %s address (the webFetch.allowPrivate setting allows it)", e.Addr, e.Reason)
}

// metadata are cloud metadata endpoints, refused even with allowPrivate.
var metadata = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, …
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"),   // Azure wire server
}

// special are ranges that are not public unicast beyond what netip
// classifies.
var special = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	// IPv6 forms that reach an IPv4 host through a translator or the
	// kernel's own mapping, whatever the IPv4 address: refused outright.
	{netip.MustParsePrefix("::/96"), "IPv4-compatible IPv6"},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "NAT64 (local use)"},
}

// checkAddress is the dialer's check of every resolved address, so that no
// redirect, DNS answer or rebinding can reach an address the policy refuses.
func checkAddress(hostport string, allowPrivate bool, public []netip.Addr) error {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("refused to connect to %q: not an IP address", host)
	}
	if slices.Contains(public, addr) {
		return nil
	}
	if reason := blockedReason(addr); reason != "" {
		if allowPrivate && reason != "cloud metadata" {
			return nil
		}
		return &BlockedError{Addr: addr, Reason: reason}
	}
	return nil
}

// blockedReason says why addr is not a public address, or "".
func blockedReason(addr netip.Addr) string {
	addr = addr.WithZone("").Unmap()
	for _, m := range metadata {
		if addr == m {
			return "cloud metadata"
		}
	}
	// IPv6 forms that embed an IPv4 address: NAT64 and 6to4.
	if addr.Is6() {
		b := addr.As16()
		if netip.MustParsePrefix("64:ff9b::/96").Contains(addr) {
			if r := blockedReason(netip.AddrFrom4([4]byte(b[12:16]))); r != "" {
				return r
			}
		}
		if netip.MustParsePrefix("2002::/16").Contains(addr) {
			if r := blockedReason(netip.AddrFrom4([4]byte(b[2:6]))); r != "" {
				return r
			}
		}
	}
	switch {
	case addr.IsLoopback():
		return "loopback"
	case addr.IsUnspecified():
		return "unspecified"
	case addr.IsPrivate():
		return "private"
	case addr.IsLinkLocalUnicast():
		return "link-local"
	case addr.IsMulticast(), addr.IsLinkLocalMulticast(), addr.IsInterfaceLocalMulticast():
		return "multicast"
	case addr == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	for _, s := range special {
		if s.prefix.Contains(addr) {
			return s.reason
		}
	}
	return ""
}
