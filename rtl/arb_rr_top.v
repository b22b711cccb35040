// The co-simulation top of the `rr` arbiter (docs/cosim.md "The arbiter interface"):
// the rr core inside the starvation guard (docs/arbiters.md §5; thresh = 0: no guard).
//
// One arbitration cycle: drive req (and hold clk low), read gnt_valid/gnt (combinational in
// req and the registers), then raise clk: the registers load when req != 0 (docs/arbiters.md §1).
`default_nettype none

module arb_rr_top #(
    parameter integer N    = 4,    // requesters, 2..32
    /* verilator lint_off UNUSEDPARAM */
    parameter integer MAXL = 256   // phase-table capacity (wrr), a power of two; unused here
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire         clk,
    input  wire         rst_n,     // synchronous, active low
    input  wire [N-1:0] req,
    // Static configuration, set before reset is released.
    input  wire [31:0]  thresh,    // starvation threshold x (0 = guard off)
    input  wire         tbl_we,    // phase-table write port, used after reset (wrr)
    input  wire [15:0]  tbl_addr,
    input  wire [4:0]   tbl_data,
    input  wire [16:0]  tbl_len,   // phase-table length L, 1..MAXL (wrr)
    output wire         gnt_valid, // req != 0
    output wire [4:0]   gnt        // granted requester, valid with gnt_valid
);
  wire [4:0] core_gnt;
  wire       core_adv;
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused = &{1'b0, tbl_we, tbl_addr, tbl_data, tbl_len};
  /* verilator lint_on UNUSEDSIGNAL */

  arb_rr #(.N(N)) u_core (.clk(clk), .rst_n(rst_n), .req(req), .adv(core_adv), .gnt(core_gnt));

  arb_starvation_guard #(.N(N)) u_guard (
      .clk(clk), .rst_n(rst_n), .req(req), .thresh(thresh),
      .inner_gnt(core_gnt), .gnt(gnt), .inner_adv(core_adv));

  assign gnt_valid = req != {N{1'b0}};
endmodule

`default_nettype wire
