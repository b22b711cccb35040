// Round-robin arbiter core: docs/arbiters.md §2 (PCIe "hardware-fixed" arbitration).
//
//   gnt = the first requester after `ptr` (ptr+1, ptr+2, ... mod N) whose req bit is set;
//   ptr <= gnt at the clock edge when `adv` is high (the grant was used); reset ptr = N-1,
//   so the first grant goes to the lowest requesting index.
//
// `gnt` is combinational in (req, ptr) and meaningful only while req != 0.
`default_nettype none

module arb_rr #(
    parameter integer N = 4  // requesters, 2..32
) (
    input  wire         clk,
    input  wire         rst_n,  // synchronous, active low
    input  wire [N-1:0] req,
    input  wire         adv,    // load ptr with this cycle's grant
    output reg  [4:0]   gnt
);
  localparam integer IW = $clog2(N);
  localparam integer LAST = N - 1;

  reg [IW-1:0] ptr;       // last granted index
  reg [N-1:0]  above;     // requesters strictly after ptr (no wrap)
  integer i;

  always @* begin
    for (i = 0; i < N; i = i + 1) above[i] = req[i] && (i[IW:0] > {1'b0, ptr});
    gnt = 5'd0;
    // Lowest index of `above`, else (wrap) the lowest requester.
    for (i = N - 1; i >= 0; i = i - 1)
      if (above == {N{1'b0}} ? req[i] : above[i]) gnt = i[4:0];
  end

  always @(posedge clk)
    if (!rst_n) ptr <= LAST[IW-1:0];
    else if (adv) ptr <= gnt[IW-1:0];
endmodule

`default_nettype wire
