/* echo.h -- the minimal echo control program's SRAM layout, shared by the firmware
 * (firmware/echo/echo.c) and its host side (the `lanaikit echo` experiment, sim/echo.*).
 *
 * One message at a time in each direction:
 *   host A: PIO-writes the payload into the send buffer, then the length and destination
 *           into the control block, then rings the doorbell (HOST_SIG);
 *   LANai A: prefixes the route and a header, sends the packet (SMP / SMLT);
 *   LANai B: receives it into its receive buffer, DMAs the payload into host B's receive
 *           buffer, then DMAs a completion record (sequence number, length) after it;
 *   host B: watches the completion record.
 * Words in SRAM are big-endian (the chip's byte order); the host swaps. */
#ifndef LANAIKIT_ECHO_H
#define LANAIKIT_ECHO_H

#define ECHO_CTL        0x10000u /* control block (struct echo_ctl) */
#define ECHO_SEND_BUF   0x11000u /* route + header are written just before the payload */
#define ECHO_SEND_DATA  (ECHO_SEND_BUF + 0x40u)
#define ECHO_RECV_BUF   0x20000u /* receive DMA lands here: header, then payload */
#define ECHO_COMPLETION 0x1F000u /* completion record staged for its DMA */
#define ECHO_MAX_DATA   65536u
#define ECHO_MAX_ROUTE  8u
#define ECHO_MAX_NODES  16u
#define ECHO_MAGIC      0x4543484Fu /* "ECHO" */

/* Field offsets in the control block (words). */
#define ECHO_CTL_NODE       0x00u /* this node's index */
#define ECHO_CTL_SEND_LEN   0x04u /* payload bytes of the message to send */
#define ECHO_CTL_SEND_DEST  0x08u /* destination node */
#define ECHO_CTL_HOST_BUF   0x0Cu /* host physical address of the receive buffer */
#define ECHO_CTL_SENT       0x10u /* counters */
#define ECHO_CTL_RECEIVED   0x14u
#define ECHO_CTL_REJECTED   0x18u /* bad CRC, bad magic, bad length */
#define ECHO_CTL_BAD_SEND   0x1Cu /* host asked for a bad length or destination */
#define ECHO_CTL_ROUTE_LEN  0x40u /* ECHO_MAX_NODES words: route length per destination */
#define ECHO_CTL_ROUTES     0x80u /* ECHO_MAX_NODES x ECHO_MAX_ROUTE bytes */

/* Packet header after the route bytes: magic, source node, payload length. */
#define ECHO_HEADER_BYTES 12u

/* The completion record the firmware DMAs to host_buf + ECHO_MAX_DATA: sequence number
 * (1, 2, ...), payload length, source node. */
#define ECHO_COMPLETION_BYTES 12u

#endif
