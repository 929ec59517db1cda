//! Integration tests of the conformance runners (mcp-conformance and acp-conformance): report writers against golden files, the
//! command line, grading of real third-party servers, the default target end to end, and
//! deliberately broken servers (mutants, and the independent mutant server and agent suites) and a
//! gateway built from the re-exporting proxy example.

mod acp_agents;
mod acp_client;
mod acp_containment;
mod acp_mutants;
mod acp_vendor_agents;
mod action;
mod cascades;
mod cli;
mod coverage;
mod default_target;
mod defects;
mod docs;
mod families;
mod gateway;
mod golden;
mod http;
mod http_rev_2025_11_25;
mod levels;
mod load;
mod modern;
mod mutant_suite_acp;
mod mutant_suite_mcp;
mod mutants;
mod real_context7_server;
mod real_dotnet_server;
mod real_fastmcp_server;
mod real_firecrawl_server;
mod real_go_server;
mod real_http_servers;
mod real_npm_servers;
mod real_pypi_servers;
mod real_rmcp_server;
mod real_rust_mcp_sdk_server;
mod real_servers;
mod reports;
mod rev_2025_11_25;
mod revisions;
mod support;
mod verdicts;
