// Strict-priority arbiter core: docs/arbiters.md §3. The highest requesting index wins
// (VC7 highest, seed 000 §3.2). No state.
`default_nettype none

module arb_strict #(
    parameter integer N = 4  // requesters, 2..32
) (
    input  wire [N-1:0] req,
    output reg  [4:0]   gnt   // meaningful only while req != 0
);
  integer i;
  always @* begin
    gnt = 5'd0;
    for (i = 0; i < N; i = i + 1) if (req[i]) gnt = i[4:0];
  end
endmodule

`default_nettype wire
