// Weighted round-robin arbiter core over a phase table: docs/arbiters.md §4.
//
// State: p (phase where the next scan starts, reset 0) and the fallback round-robin pointer
// (an arb_rr instance, reset N-1). Table: tbl[j] = requester of phase j, for j < tbl_len;
// written through the tbl_* port after reset (it is configuration, like a PCIe port's VC
// Arbitration Table). own[i] has bit j set when phase j names requester i.
//
// On a cycle with req != 0 and adv high:
//   table path (some requester that owns a phase requests): gnt = tbl[j] for the first j in
//     scan order p, p+1, ..., L-1, 0, ..., p-1 whose requester requests; p <= (j+1) mod L;
//     the fallback pointer holds;
//   fallback path (no requester owns a phase): gnt = round robin over req, its pointer moves;
//     p holds.
`default_nettype none

module arb_wrr #(
    parameter integer N    = 4,    // requesters, 2..32
    parameter integer MAXL = 256   // phase-table capacity, a power of two
) (
    input  wire         clk,
    input  wire         rst_n,     // synchronous, active low; also clears the table's owners
    input  wire [N-1:0] req,
    input  wire         adv,       // load the state with this cycle's grant
    input  wire         tbl_we,    // phase-table write port (sampled when rst_n is high)
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [15:0]  tbl_addr,  // bits >= log2(MAXL) unused
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [4:0]   tbl_data,
    input  wire [16:0]  tbl_len,   // L, 1..MAXL; static
    output reg  [4:0]   gnt        // meaningful only while req != 0
);
  localparam integer PW = $clog2(MAXL);

  reg [4:0]      tbl [0:MAXL-1];
  reg [MAXL-1:0] own [0:N-1];
  reg [PW-1:0]   p;

  reg [MAXL-1:0] hit;        // phases whose requester requests
  reg [MAXL-1:0] hit_from_p; // ... at or after p
  reg            table_path;
  reg [PW-1:0]   j;          // the granted phase
  wire [4:0]     fb_gnt;
  wire [16:0]    j_next = {{(17 - PW){1'b0}}, j} + 17'd1;
  integer i;

  // Index of the lowest set bit (0 if none): a log2(MAXL)-level tree, no long scan chain.
  function automatic [PW-1:0] lowest_set(input [MAXL-1:0] v);
    reg [MAXL-1:0] t;
    integer k;
    begin
      t = v;
      lowest_set = {PW{1'b0}};
      for (k = PW - 1; k >= 0; k = k - 1)
        if ((t & ~({MAXL{1'b1}} << (1 << k))) == {MAXL{1'b0}}) begin
          lowest_set[k] = 1'b1;
          t = t >> (1 << k);
        end
    end
  endfunction

  always @* begin
    hit = {MAXL{1'b0}};
    for (i = 0; i < N; i = i + 1) if (req[i]) hit = hit | own[i];
    table_path = hit != {MAXL{1'b0}};
    hit_from_p = hit & ({MAXL{1'b1}} << p);
    j = lowest_set(hit_from_p != {MAXL{1'b0}} ? hit_from_p : hit);
    gnt = table_path ? tbl[j] : fb_gnt;
  end

  arb_rr #(.N(N)) u_fallback (
      .clk(clk), .rst_n(rst_n), .req(req), .adv(adv && !table_path), .gnt(fb_gnt));

  always @(posedge clk) begin
    if (!rst_n) begin
      p <= {PW{1'b0}};
      for (i = 0; i < N; i = i + 1) own[i] <= {MAXL{1'b0}};
    end else begin
      if (adv && table_path) p <= (j_next == tbl_len) ? {PW{1'b0}} : j_next[PW-1:0];
      if (tbl_we) begin
        tbl[tbl_addr[PW-1:0]] <= tbl_data;
        for (i = 0; i < N; i = i + 1) own[i][tbl_addr[PW-1:0]] <= tbl_data == i[4:0];
      end
    end
  end
endmodule

`default_nettype wire
