import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Router } from 'wouter';
import { retryDelay, retryRead } from './api/client';
import { App } from './app';
import { AuthProvider } from './auth';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // An answer of the API is shown as it came; only a busy or limited service is asked again,
      // after the Retry-After it gave (a key's rate limit counts every request the console makes).
      retry: retryRead,
      retryDelay,
      refetchOnWindowFocus: true,
      staleTime: 5_000,
    },
  },
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <AuthProvider>
        <Router base="/console">
          <App />
        </Router>
      </AuthProvider>
    </QueryClientProvider>
  </StrictMode>,
);
