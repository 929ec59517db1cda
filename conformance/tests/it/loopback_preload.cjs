// Preloaded into a Node server under test (NODE_OPTIONS=--require): a listen() given a port
// and no host is bound to 127.0.0.1, so a server that would listen on every interface serves
// loopback only during the runner's tests.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === "number" || typeof args[0] === "string") && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
