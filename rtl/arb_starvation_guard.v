// Starvation guard around an arbiter core: docs/arbiters.md §5 (seed 000 §3.2: a head
// blocked for x cycles is served immediately).
//
// w[i] counts the consecutive non-idle cycles requester i requested without a grant.
// F = { i : req[i] and w[i] >= x }. If F is not empty the grant is the i in F with the
// largest w[i] (ties: highest index) and the core is not advanced; else the grant is the
// core's and the core advances. Then, on every non-idle cycle,
// w[i] <= (req[i] and i != gnt) ? w[i] + 1 : 0. Idle cycles change nothing.
// thresh == 0 turns the guard off (counters stay 0).
`default_nettype none

module arb_starvation_guard #(
    parameter integer N = 4  // requesters, 2..32
) (
    input  wire         clk,
    input  wire         rst_n,      // synchronous, active low
    input  wire [N-1:0] req,
    input  wire [31:0]  thresh,     // x; 0 = off; static
    input  wire [4:0]   inner_gnt,  // the core's choice
    output reg  [4:0]   gnt,
    output wire         inner_adv   // the core's grant is used: advance its state
);
  reg [31:0] w [0:N-1];
  reg [31:0] best;
  reg        forced;
  wire       on = thresh != 32'd0;
  integer i;

  always @* begin
    forced = 1'b0;
    gnt = inner_gnt;
    best = thresh;
    // Ascending with >=: a later (higher) index wins a tie.
    for (i = 0; i < N; i = i + 1)
      if (on && req[i] && w[i] >= best) begin
        forced = 1'b1;
        gnt = i[4:0];
        best = w[i];
      end
  end

  assign inner_adv = req != {N{1'b0}} && !forced;

  always @(posedge clk)
    for (i = 0; i < N; i = i + 1)
      if (!rst_n) w[i] <= 32'd0;
      else if (on && req != {N{1'b0}}) w[i] <= (req[i] && gnt != i[4:0]) ? w[i] + 32'd1 : 32'd0;
endmodule

`default_nettype wire
